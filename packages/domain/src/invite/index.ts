/** Invites: records, API schemas, the state machine and the repository port. */
export * from "./Invite.ts"
export * from "./InviteMachine.ts"
export * from "./InviteRepository.ts"
export * from "./InviteRequests.ts"
