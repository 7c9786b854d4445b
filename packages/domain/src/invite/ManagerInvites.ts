/**
 * Manager invites (SPEC §4.9, DESIGN §5b): a team admin asks for role grants (`team_admin`, `team_finance_admin`,
 * `team_viewer`) to wallets, signs the typed data, and the execution grants them on chain through the forwarder, once
 * per salt, with the same claim, wait and replay as payments (`executeOnce`). Each wallet then becomes a member with its role (invite `accepted`).
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { RequestError } from "../chain/ChainError.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { IssuedRoles } from "../eip712/IssuedTypedDataStore.ts"
import { IssuedTypedDataStore } from "../eip712/IssuedTypedDataStore.ts"
import type { SignedRequestError } from "../eip712/SignedRequest.ts"
import type { RolesTypedDataBundle } from "../eip712/TypedData.ts"
import { makeRolesTypedData } from "../eip712/TypedDataBuilder.ts"
import { makeDomainEvent, makeUuid } from "../event/EventEnvelope.ts"
import { IdGenerator, type InviteId } from "../Ids.ts"
import type { Mail } from "../mail/Mail.ts"
import type { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { executeOnce, releaseOnRefusal, sendToChain, settleWithin } from "../payment/ExecuteOnce.ts"
import { ExecutionBodyMismatch, ExecutionInProgress, TeamAccountMissing } from "../payment/PaymentErrors.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { Randomness } from "../Randomness.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import { teamAccountOf } from "../team/Team.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import type { Caller } from "../user/Caller.ts"
import { newUser } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type Invite, membershipRoleOf } from "./Invite.ts"
import { AlreadyTeamMember, InviteAnswered, type InviteClosed, InviteExpired, InviteRevoked } from "./InviteErrors.ts"
import { inviteMailOf } from "./InviteMail.ts"
import { InviteRepository } from "./InviteRepository.ts"
import type { CreateManagerInvitesRequest, ExecuteManagerInvitesRequest } from "./InviteRequests.ts"
import { InviteSettings } from "./InviteSettings.ts"
import { makeInviteToken } from "./InviteToken.ts"

/** What POST /v2/invites/manager answers: the bundle to sign and the invites it covers. */
export type ManagerInviteBundle = RolesTypedDataBundle & { readonly invites: ReadonlyArray<InviteId> }

/**
 * What PUT /v2/invites/manager answers, the first time and on every replay; `inFlight` while its transaction is sent
 * and not final yet (202, decision 0061).
 */
export interface ManagerInvitesResult {
  readonly invites: ReadonlyArray<InviteId>
  readonly transaction: string
  readonly inFlight?: true | undefined
}

/** Why an execution is refused. */
export type ManagerExecutionError =
  | TeamNotFound
  | InsufficientPermissions
  | ExecutionBodyMismatch
  | ExecutionInProgress
  | InviteClosed
  | SignedRequestError
  | RequestError

/** Manager invites, for a caller. */
export class ManagerInvites extends Context.Service<
  ManagerInvites,
  {
    /** Pending manager invites and the role grants to sign, by the caller's wallet, on the team's account. */
    readonly create: (
      caller: Caller,
      body: CreateManagerInvitesRequest
    ) => Effect.Effect<
      ManagerInviteBundle,
      TeamNotFound | InsufficientPermissions | TeamAccountMissing | AlreadyTeamMember
    >
    /** Grants the signed roles on chain once per salt, and makes each wallet a member with its role. */
    readonly execute: (
      caller: Caller,
      body: ExecuteManagerInvitesRequest
    ) => Effect.Effect<ManagerInvitesResult, ManagerExecutionError>
  }
>()("@svc/domain/invite/ManagerInvites") {
  /** On the chain, the stores, `TeamAccess`, `IdGenerator`, `Randomness`, `SignatureVerifier` and `InviteSettings`. */
  static readonly layer = Layer.effect(
    ManagerInvites,
    Effect.gen(function* () {
      const access = yield* TeamAccess
      const chain = yield* ChainGateway
      const invites = yield* InviteRepository
      const store = yield* IssuedTypedDataStore
      const ledger = yield* PaymentLedger
      const users = yield* UserRepository
      const memberships = yield* MembershipRepository
      const ids = yield* IdGenerator
      const settings = yield* InviteSettings
      // The steps ask for these; the service answers them.
      const context = Context.pick(
        IdGenerator,
        Randomness,
        SignatureVerifier,
        IssuedTypedDataStore,
        PaymentLedger
      )(yield* Effect.context<IdGenerator | Randomness | SignatureVerifier | IssuedTypedDataStore | PaymentLedger>())
      const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

      /**
       * Accepts each still-pending invite of an executed grant: the wallet's user (created if new) becomes a member
       * with the role, with `invite.accepted` and `team.member_added`, each in one step. Run again on every replay,
       * so an execution recorded by a process that died before this completes here.
       */
      const acceptGranted = Effect.fn("ManagerInvites.acceptGranted")(function* (issued: IssuedRoles) {
        for (const id of issued.request.invites) {
          const invite = yield* invites.findById(id).pipe(Effect.option)
          if (Option.isNone(invite) || invite.value.state !== "pending" || invite.value.account === undefined) continue
          const now = yield* nowIso
          const wallet = invite.value.account
          const existing = yield* users.findByWallet(wallet)
          if (Option.isNone(existing)) {
            const created = newUser({
              nanoid: yield* ids.make("user"),
              wallet,
              email: invite.value.email,
              created_at: now
            })
            yield* users.insert(created).pipe(Effect.catchTag("WalletTaken", () => Effect.void))
          }
          const user = yield* users.findByWallet(wallet)
          if (Option.isNone(user)) continue
          const member = yield* memberships.find(invite.value.team_nanoid, user.value.nanoid)
          const holdsRole = Option.isSome(member) && member.value.role === membershipRoleOf(invite.value.role)
          const accepted: Invite = {
            ...invite.value,
            state: "accepted",
            user_nanoid: user.value.nanoid,
            updated_at: now
          }
          const membership = {
            nanoid: yield* ids.make("membership"),
            team_nanoid: invite.value.team_nanoid,
            user_nanoid: user.value.nanoid,
            role: membershipRoleOf(invite.value.role),
            email: invite.value.email,
            created_at: now
          }
          const scope = {
            team_nanoid: invite.value.team_nanoid,
            ...(invite.value.company_nanoid === undefined ? {} : { company_nanoid: invite.value.company_nanoid })
          }
          const acceptedEvent = yield* makeDomainEvent({
            ...scope,
            event_type: "invite.accepted",
            data: {
              nanoid: accepted.nanoid,
              user_nanoid: user.value.nanoid,
              email: accepted.email,
              role: membership.role,
              status: "accepted",
              anonymous: false,
              invited_by: accepted.inviter_nanoid,
              invited_to: accepted.team_nanoid
            }
          })
          // Already a member with this role: the grant only brought it on chain, so the membership stays as it is.
          if (holdsRole) {
            yield* invites
              .transition(id, "pending", "accepted", {
                patch: { user_nanoid: user.value.nanoid, updated_at: now },
                events: [acceptedEvent]
              })
              .pipe(Effect.ignore)
            continue
          }
          const events = [
            acceptedEvent,
            yield* makeDomainEvent({
              ...scope,
              event_type: "team.member_added",
              data: {
                team_nanoid: accepted.team_nanoid,
                user_nanoid: user.value.nanoid,
                relationship_nanoid: membership.nanoid,
                email: accepted.email,
                role: membership.role,
                invite_nanoid: accepted.nanoid
              }
            })
          ]
          // Another replay may have accepted it first, or the wallet joined meanwhile: then there is nothing to do.
          yield* invites
            .transition(id, "pending", "accepted", {
              patch: { user_nanoid: user.value.nanoid, updated_at: now },
              membership,
              ...(user.value.email === "" ? { userEmail: { user: user.value.nanoid, email: invite.value.email } } : {}),
              events
            })
            .pipe(Effect.ignore)
        }
      })

      const create = Effect.fn("ManagerInvites.create")(function* (caller: Caller, body: CreateManagerInvitesRequest) {
        const { team } = yield* access.authorize(caller, body.nanoid, "invites.manager")
        const account = teamAccountOf(team)
        if (account === undefined) return yield* new TeamAccountMissing({ team: team.nanoid })
        for (const entry of body.invites) {
          const user = yield* users.findByWallet(entry.wallet)
          const member = Option.isSome(user) ? yield* memberships.find(team.nanoid, user.value.nanoid) : Option.none()
          // A member may be granted on chain the role they already hold (an admin who joined by an admin invite of
          // a new team, decision 0041); any other role is a change of role, which this is not.
          if (Option.isSome(member) && member.value.role !== entry.role) {
            return yield* new AlreadyTeamMember({ team: team.nanoid })
          }
        }
        const now = yield* nowIso
        const expires_at = DateTime.formatIso(DateTime.add(yield* DateTime.now, { milliseconds: settings.ttlMillis }))
        const inviter = Option.getOrUndefined(yield* users.findById(caller.nanoid))
        const list: Array<Invite> = []
        const mails: Array<Mail> = []
        for (const entry of body.invites) {
          // The signed grant is the acceptance; the mailed link opens the invite page, where the invitee may decline.
          const { token, hash } = yield* makeInviteToken
          const invite: Invite = {
            nanoid: yield* ids.make("invite"),
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
          list.push(invite)
          mails.push(
            inviteMailOf({
              id: yield* makeUuid,
              invite,
              token,
              team,
              inviter,
              publicBaseUrl: settings.publicBaseUrl
            })
          )
        }
        const [first, ...rest] = body.invites.map((entry) => ({ role: entry.role, account: entry.wallet }))
        const bundle = yield* makeRolesTypedData(
          { chainId: chain.chainId, verifyingContract: chain.addresses.forwarder },
          { from: caller.wallet, to: account },
          // The request schema holds at least one invite.
          [first ?? { role: "team_viewer", account: caller.wallet }, ...rest]
        )
        yield* invites.create(list, mails)
        yield* store.issue({
          kind: "roles",
          salt: bundle.typed_data.salt,
          team: team.nanoid,
          issuedTo: caller.nanoid,
          signer: caller.wallet,
          bundle,
          request: { invites: list.map((i) => i.nanoid) }
        })
        return { ...bundle, invites: list.map((i) => i.nanoid) }
      })

      const execute = Effect.fn("ManagerInvites.execute")(function* (
        caller: Caller,
        body: ExecuteManagerInvitesRequest
      ) {
        const salt = body.typed_data.salt
        const issued = yield* store.find(salt)
        const sameInvites =
          issued.kind === "roles" &&
          issued.request.invites.length === body.invites.length &&
          issued.request.invites.every((id) => body.invites.includes(id))
        if (issued.kind !== "roles" || !sameInvites) return yield* new ExecutionBodyMismatch({ salt })
        yield* access.authorize(caller, issued.team, "invites.manager")
        // A revoked, rejected or expired invite is not granted (an accepted one is: this is a replay).
        for (const id of issued.request.invites) {
          const invite = yield* invites.findById(id).pipe(Effect.option)
          if (Option.isSome(invite) && invite.value.state !== "pending" && invite.value.state !== "accepted") {
            return yield* invite.value.state === "revoked"
              ? new InviteRevoked({ nanoid: id })
              : invite.value.state === "expired"
                ? new InviteExpired({ nanoid: id })
                : new InviteAnswered({ nanoid: id, state: invite.value.state })
          }
        }
        const result = (transaction: string): ManagerInvitesResult => ({ invites: issued.request.invites, transaction })
        // Granted, recorded and accepted on a fiber of its own: past `SettlementWait`, the answer is the transaction in
        // flight (noted for replays) and the grant goes on by itself.
        const grant = (claimToken: string) =>
          settleWithin(
            (progress) =>
              Effect.gen(function* () {
                const settlement = yield* sendToChain(issued, body.signature, progress).pipe(
                  Effect.provideService(ChainGateway, chain),
                  Effect.tapError((error) => releaseOnRefusal(salt, claimToken, error))
                )
                yield* ledger.recordExecution({
                  salt,
                  claimToken,
                  signature: body.signature,
                  result: { transaction: settlement.transactionHash, payments: [] },
                  payments: [],
                  events: []
                })
                yield* acceptGranted(issued)
                return result(settlement.transactionHash)
              }),
            (transaction) =>
              ledger.noteInFlight({
                salt,
                claimToken,
                signature: body.signature,
                result: { transaction, payments: [] },
                payments: []
              }),
            `manager grant ${salt}`
          ).pipe(
            Effect.map((settled) =>
              settled._tag === "Done" ? settled.value : { ...result(settled.transaction), inFlight: true as const }
            )
          )
        return yield* executeOnce({
          request: { typedData: body.typed_data, signer: body.signer, signature: body.signature },
          execute: (claim) => grant(claim.claimToken),
          recorded: (recorded) => Effect.as(acceptGranted(issued), result(recorded.transaction)),
          inFlight: (noted) => Effect.succeed({ ...result(noted.transaction), inFlight: true as const }),
          abandoned: (): Effect.Effect<ManagerInvitesResult | undefined, ManagerExecutionError> =>
            Effect.fail(new ExecutionInProgress({ salt, message: "The grant is being reconciled; retry later" }))
        })
      })

      return ManagerInvites.of({
        create: (caller, body) => create(caller, body).pipe(Effect.provide(context)),
        execute: (caller, body) => execute(caller, body).pipe(Effect.provide(context))
      })
    })
  )
}
