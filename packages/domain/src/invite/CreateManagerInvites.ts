/**
 * Asking for manager roles (SPEC §4.9, DESIGN §5b): pending manager invites, each mailed to its invitee (who may
 * decline), and the role grants for the caller's wallet to sign, on the team's account. The signed grant, executed,
 * is the acceptance (`executeManagerInvites`).
 */
import { Effect, Option } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { makeRolesTypedData } from "../eip712/TypedDataBuilder.ts"
import { IdGenerator } from "../Ids.ts"
import type { Mail } from "../mail/Mail.ts"
import { MailOutbox } from "../mail/MailOutbox.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { TeamAccountMissing } from "../payment/PaymentErrors.ts"
import { type Team, teamAccountOf } from "../team/Team.ts"
import { UnitOfWork } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { Invite } from "./Invite.ts"
import { AlreadyTeamMember } from "./InviteErrors.ts"
import { InviteRepository } from "./InviteRepository.ts"
import type { CreateManagerInvitesRequest } from "./InviteRequests.ts"
import { InviteSettings } from "./InviteSettings.ts"
import { inviteMailFor, later, nowIso } from "./InviteSteps.ts"
import { makeInviteToken } from "./InviteToken.ts"

/**
 * Refuses a wallet whose user is a member of the team with another role: a member may be granted on chain the role
 * they hold (an admin who joined by an admin invite of a new team, decision 0041), but a change of role is not this.
 */
const refuseRoleChanges = Effect.fn("ManagerInvites.refuseRoleChanges")(function* (
  team: Team,
  body: CreateManagerInvitesRequest
) {
  for (const entry of body.invites) {
    const user = yield* UserRepository.use((u) => u.findByWallet(entry.wallet))
    const member = Option.isSome(user)
      ? yield* MembershipRepository.use((m) => m.find(team.nanoid, user.value.nanoid))
      : Option.none()
    if (Option.isSome(member) && member.value.role !== entry.role) {
      return yield* new AlreadyTeamMember({ team: team.nanoid })
    }
  }
})

/** One pending manager invite per entry, with the mail carrying its link (the invite page, to decline). */
const invitesOf = Effect.fn("ManagerInvites.invitesOf")(function* (
  caller: Caller,
  team: Team,
  body: CreateManagerInvitesRequest
) {
  const now = yield* nowIso
  const expires_at = yield* later((yield* InviteSettings).ttlMillis)
  const made: Array<{ readonly invite: Invite; readonly mail: Mail }> = []
  for (const entry of body.invites) {
    const { token, hash } = yield* makeInviteToken
    const invite: Invite = {
      nanoid: yield* IdGenerator.use((ids) => ids.make("invite")),
      team_nanoid: team.nanoid,
      company_nanoid: team.company_nanoid,
      kind: "manager",
      role: entry.role,
      email: entry.email,
      invitee_name: "",
      inviter_nanoid: caller.nanoid,
      account: entry.wallet,
      anonymous: false,
      state: "pending",
      token_hash: hash,
      expires_at,
      created_at: now,
      updated_at: now
    }
    made.push({ invite, mail: yield* inviteMailFor(invite, token, team) })
  }
  return made
})

/** Creates the invites and issues the role grants to sign (`invites.manager`), on a team with an account. */
export const createManagerInvites = Effect.fn("ManagerInvites.create")(function* (
  caller: Caller,
  body: CreateManagerInvitesRequest
) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.nanoid, "invites.manager"))
  // Asked first: a deployment without a chain refuses (501) before anything is read or written.
  const chain = yield* ChainGateway
  const addresses = yield* chain.addresses
  const account = teamAccountOf(team)
  if (account === undefined) return yield* new TeamAccountMissing({ team: team.nanoid })
  yield* refuseRoleChanges(team, body)
  const made = yield* invitesOf(caller, team, body)
  const [first, ...rest] = body.invites.map((entry) => ({ role: entry.role, account: entry.wallet }))
  const bundle = yield* makeRolesTypedData(
    { chainId: chain.chainId, verifyingContract: addresses.forwarder },
    { from: caller.wallet, to: account },
    // The request schema holds at least one invite.
    [first ?? { role: "team_viewer", account: caller.wallet }, ...rest]
  )
  const invites = made.map((m) => m.invite.nanoid)
  yield* UnitOfWork.use((unit) =>
    unit.run(
      Effect.andThen(
        InviteRepository.use((repository) => repository.create(made.map((m) => m.invite))),
        MailOutbox.use((outbox) => outbox.enqueue(made.map((m) => m.mail)))
      )
    )
  )
  yield* IssuedRequestStore.use((store) =>
    store.issue({
      kind: "roles",
      salt: bundle.typed_data.salt,
      team: team.nanoid,
      issuedTo: caller.nanoid,
      signer: caller.wallet,
      bundle,
      request: { invites }
    })
  )
  return { ...bundle, invites }
})
