/** Invites: records, tokens, API schemas, the state machine, the repository port and the use cases (`Invites`). */
export * from "./Invite.ts"
export * from "./InviteErrors.ts"
export * from "./InviteMachine.ts"
export * from "./InviteRepository.ts"
export * from "./InviteRequests.ts"
export * from "./InviteSettings.ts"
export * from "./Invites.ts"
export * from "./InviteToken.ts"
