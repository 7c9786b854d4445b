/**
 * The invite use cases (SPEC §4.11, §4.12; DESIGN §5b): invite members by e-mail, list invites, accept or reject one
 * with its e-mail's token, revoke, send again, and expire those left unanswered. Every change is one atomic step of
 * the `InviteRepository` with its mails, membership and events.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { CompanyNotFound } from "../company/CompanyNotFound.ts"
import { CompanyRepository } from "../company/CompanyRepository.ts"
import { type DomainEvent, makeDomainEvent, makeUuid } from "../event/EventEnvelope.ts"
import type { InviteEventPayload } from "../event/EventPayload.ts"
import { type CompanyId, IdGenerator, type InviteId, type TeamId } from "../Ids.ts"
import type { Mail } from "../mail/Mail.ts"
import type { Membership } from "../membership/Membership.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { isAllowed } from "../membership/Permission.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { Randomness } from "../Randomness.ts"
import { IllegalTransition } from "../StateMachine.ts"
import type { Team } from "../team/Team.ts"
import { TeamNotFound } from "../team/TeamNotFound.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import type { Caller } from "../user/Caller.ts"
import { displayNameOf, type User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type Invite, type InvitePreview, type InviteView, inviteeNameOf, membershipRoleOf } from "./Invite.ts"
import { AlreadyTeamMember, InviteAnswered, type InviteClosed, InviteExpired, InviteRevoked } from "./InviteErrors.ts"
import { InviteNotFound, InviteRepository } from "./InviteRepository.ts"
import type { AnswerInviteRequest, CreateInvitesRequest } from "./InviteRequests.ts"
import { InviteSettings } from "./InviteSettings.ts"
import { hashInviteToken, makeInviteToken } from "./InviteToken.ts"

/** An invite's state after a step, as the routes answer it. */
export interface InviteOutcome {
  readonly invite_nanoid: InviteId
  readonly team_nanoid: TeamId
  readonly state: Invite["state"]
  readonly role: string
  readonly expires_at: string
}

const outcomeOf = (invite: Invite): InviteOutcome => ({
  invite_nanoid: invite.nanoid,
  team_nanoid: invite.team_nanoid,
  state: invite.state,
  role: invite.role,
  expires_at: invite.expires_at
})

/** Why a pending-looking invite cannot be answered at `now`, or `undefined` when it can. */
const closedReason = (invite: Invite, now: string): InviteClosed | undefined => {
  switch (invite.state) {
    case "accepted":
    case "rejected":
      return new InviteAnswered({ nanoid: invite.nanoid, state: invite.state })
    case "revoked":
      return new InviteRevoked({ nanoid: invite.nanoid })
    case "expired":
      return new InviteExpired({ nanoid: invite.nanoid })
    case "pending":
      return invite.expires_at <= now ? new InviteExpired({ nanoid: invite.nanoid }) : undefined
  }
}

/** The `invite` payload of the invite events (SPEC §6). */
const invitePayloadOf = (invite: Invite, status: InviteEventPayload["status"]): InviteEventPayload => ({
  nanoid: invite.nanoid,
  user_nanoid: invite.user_nanoid ?? null,
  email: invite.email,
  role: membershipRoleOf(invite.role),
  status,
  anonymous: invite.anonymous,
  invited_by: invite.inviter_nanoid,
  invited_to: invite.team_nanoid
})

/** The invite mail: who invites (unless anonymous), to what, and the single-use link. */
export const inviteMailOf = (options: {
  readonly id: string
  readonly invite: Invite
  readonly token: string
  readonly team: Team
  readonly inviter: User | undefined
  readonly publicBaseUrl: string
}): Mail => {
  const { invite, team } = options
  const link = `${options.publicBaseUrl}/invites/accept?invite=${invite.nanoid}&token=${options.token}`
  const inviter = invite.anonymous || options.inviter === undefined ? "" : displayNameOf(options.inviter)
  const invitee = inviteeNameOf(invite)
  if (invite.kind === "manager") {
    return {
      id: options.id,
      to: invite.email,
      subject: `${inviter === "" ? "You are" : `${inviter} is`} making you ${membershipRoleOf(invite.role)} of ${team.name} on svc`,
      text: [
        "Hello,",
        "",
        `${inviter === "" ? "A team admin" : inviter} is granting the wallet ${invite.account} the role ${membershipRoleOf(invite.role)} in the team "${team.name}".`,
        "The role takes effect once they sign the grant: there is nothing for you to sign.",
        "",
        `See the invite, or decline it: ${link}`,
        "",
        `To decline, open the link and sign in with that wallet. The link works until the invite is answered, and expires at ${invite.expires_at}.`,
        "If you did not expect this, decline it, or tell the team."
      ].join("\n")
    }
  }
  return {
    id: options.id,
    to: invite.email,
    subject: `Invitation to join ${team.name} on svc`,
    text: [
      invitee === "" ? "Hello," : `Hello ${invitee},`,
      "",
      `${inviter === "" ? "You have been invited" : `${inviter} invited you`} to join the team "${team.name}" as ${membershipRoleOf(invite.role)}.`,
      "",
      `Accept the invite: ${link}`,
      "",
      `The link opens a page where you connect the wallet you want to be paid to and accept, or decline. It works once and expires at ${invite.expires_at}.`,
      `(From code: POST /v2/invites/accept or /v2/invites/reject with invite_nanoid ${invite.nanoid} and the token of the link, signed in as that wallet.)`,
      "If you did not expect this invite, ignore this e-mail or decline it."
    ].join("\n")
  }
}

/** Invites, for a caller. */
export class Invites extends Context.Service<
  Invites,
  {
    /** One pending invite and one mail per e-mail, for a `team_admin`; answers the invites' ids in request order. */
    readonly create: (
      caller: Caller,
      body: CreateInvitesRequest
    ) => Effect.Effect<{ readonly nanoids: ReadonlyArray<InviteId> }, TeamNotFound | InsufficientPermissions>
    /** The pending invites of a team, or of every team of a company the caller manages (SPEC §2.6), newest first. */
    readonly list: (
      caller: Caller,
      nanoid: TeamId | CompanyId
    ) => Effect.Effect<ReadonlyArray<InviteView>, TeamNotFound | CompanyNotFound | InsufficientPermissions>
    /**
     * The signed-in invitee accepts: a member with the invite's role, the invite's e-mail recorded on the user. A
     * manager invite is accepted by its signed grant instead (`IllegalTransition`).
     */
    readonly accept: (
      caller: Caller,
      body: AnswerInviteRequest
    ) => Effect.Effect<
      InviteOutcome,
      InviteNotFound | InviteClosed | TeamNotFound | AlreadyTeamMember | IllegalTransition
    >
    /** The signed-in invitee declines (a manager invite: signed in with the wallet it grants to). */
    readonly reject: (
      caller: Caller,
      body: AnswerInviteRequest
    ) => Effect.Effect<InviteOutcome, InviteNotFound | InviteClosed>
    /** A team admin withdraws a pending invite. */
    readonly revoke: (caller: Caller, invite: InviteId) => Effect.Effect<InviteOutcome, InviteNotFound | InviteClosed>
    /** A team admin sends a pending invite again: a new token (the old link stops working) and a new lifetime. */
    readonly resend: (
      caller: Caller,
      invite: InviteId
    ) => Effect.Effect<InviteOutcome, InviteNotFound | InviteClosed | IllegalTransition>
    /**
     * What the link of an invite mail opens, without signing in: the invite the token opens (whatever its state), or
     * `InviteNotFound` for a wrong token or an invite without one (the state stays hidden).
     */
    readonly preview: (invite: InviteId, token: string) => Effect.Effect<InvitePreview, InviteNotFound>
    /** Expires up to `limit` pending invites whose lifetime passed, each with its `invite.expired`; answers how many. */
    readonly expireDue: (limit?: number) => Effect.Effect<number>
  }
>()("@svc/domain/invite/Invites") {
  /** On the repositories, `TeamAccess`, `IdGenerator`, `Randomness` and `InviteSettings`. */
  static readonly layer = Layer.effect(
    Invites,
    Effect.gen(function* () {
      const access = yield* TeamAccess
      const invites = yield* InviteRepository
      const teams = yield* TeamRepository
      const companies = yield* CompanyRepository
      const memberships = yield* MembershipRepository
      const users = yield* UserRepository
      const ids = yield* IdGenerator
      const settings = yield* InviteSettings
      // The steps ask for ids and randomness; the service answers them with these.
      const context = Context.pick(IdGenerator, Randomness)(yield* Effect.context<IdGenerator | Randomness>())
      const nowIso = Effect.map(DateTime.now, DateTime.formatIso)
      const later = (millis: number) =>
        Effect.map(DateTime.now, (now) => DateTime.formatIso(DateTime.add(now, { milliseconds: millis })))

      const eventOf = (invite: Invite, team: Team | undefined, event: NewInviteEvent) =>
        makeDomainEvent({
          event_type: event.type,
          data: event.data,
          team_nanoid: invite.team_nanoid,
          ...(team === undefined ? {} : { company_nanoid: team.company_nanoid })
        })

      /**
       * The invite with this id when the caller may manage its team's invites; an invite of a team the caller does
       * not manage is "not found", so another tenant learns nothing of it.
       */
      const managed = Effect.fn("Invites.managed")(function* (caller: Caller, id: InviteId) {
        const invite = yield* invites.findById(id)
        const granted = yield* access.authorize(caller, invite.team_nanoid, "invites.create").pipe(
          Effect.map(({ team }) => team),
          Effect.catchTags({
            TeamNotFound: () => Effect.fail(new InviteNotFound({ nanoid: id })),
            InsufficientPermissions: () => Effect.fail(new InviteNotFound({ nanoid: id }))
          })
        )
        return { invite, team: granted }
      })

      /**
       * The invite the token opens, still answerable; a wrong token is "not found" (the state stays hidden). An admin
       * invite opens for its wallet signed in, and for nobody else (decision 0041); it was never given a token, so one
       * sent with it is a wrong token too.
       */
      const opened = Effect.fn("Invites.opened")(function* (caller: Caller, body: AnswerInviteRequest) {
        const invite = yield* invites.findById(body.invite_nanoid)
        const tokenHash =
          invite.kind === "admin"
            ? invite.account === caller.wallet && body.token === undefined
              ? invite.token_hash
              : undefined
            : body.token === undefined || (invite.kind === "manager" && invite.account !== caller.wallet)
              ? undefined
              : hashInviteToken(body.token)
        if (invite.token_hash !== tokenHash) return yield* new InviteNotFound({ nanoid: body.invite_nanoid })
        const closed = closedReason(invite, yield* nowIso)
        if (closed !== undefined) return yield* closed
        return { invite, tokenHash }
      })

      const preview = Effect.fn("Invites.preview")(function* (id: InviteId, token: string) {
        const invite = yield* invites.findById(id)
        if (invite.kind === "admin" || invite.token_hash !== hashInviteToken(token)) {
          return yield* new InviteNotFound({ nanoid: id })
        }
        const team = yield* teams.findById(invite.team_nanoid)
        const inviter = invite.anonymous ? Option.none<User>() : yield* users.findById(invite.inviter_nanoid)
        const now = yield* nowIso
        return {
          invite_nanoid: invite.nanoid,
          kind: invite.kind,
          role: membershipRoleOf(invite.role),
          team_name: Option.match(team, { onNone: () => "", onSome: (t) => t.name }),
          inviter_name: Option.match(inviter, { onNone: () => "", onSome: displayNameOf }),
          email: invite.email,
          state: invite.state === "pending" && invite.expires_at <= now ? "expired" : invite.state,
          expires_at: invite.expires_at,
          account: invite.account
        } satisfies InvitePreview
      })

      /** After a lost race: the reason the invite is no longer pending, read again. */
      const whyStale = (id: InviteId) =>
        Effect.gen(function* () {
          const again = yield* invites.findById(id)
          return yield* closedReason(again, yield* nowIso) ?? new InviteAnswered({ nanoid: id, state: again.state })
        })

      const mailFor = Effect.fn("Invites.mailFor")(function* (invite: Invite, token: string, team: Team) {
        const inviter = yield* users.findById(invite.inviter_nanoid)
        return inviteMailOf({
          id: yield* makeUuid,
          invite,
          token,
          team,
          inviter: Option.getOrUndefined(inviter),
          publicBaseUrl: settings.publicBaseUrl
        })
      })

      const viewsOf = Effect.fn("Invites.viewsOf")(function* (
        list: ReadonlyArray<Invite>,
        teamsById: ReadonlyMap<TeamId, Team>,
        companyOf: (team: Team) => { readonly name: string; readonly avatar: string }
      ) {
        const inviters = new Map(
          (yield* users.findByIds([...new Set(list.map((i) => i.inviter_nanoid))])).map((u) => [u.nanoid, u])
        )
        return list.flatMap((invite): Array<InviteView> => {
          const team = teamsById.get(invite.team_nanoid)
          if (team === undefined) return []
          const inviter = invite.anonymous ? undefined : inviters.get(invite.inviter_nanoid)
          return [
            {
              nanoid: invite.nanoid,
              invitee_name: invite.invitee_name,
              email: invite.email,
              inviter_name: inviter === undefined ? "" : displayNameOf(inviter),
              inviter_email: inviter?.email ?? "",
              company: companyOf(team),
              team: { name: team.name, avatar: team.avatar }
            }
          ]
        })
      })

      const create = Effect.fn("Invites.create")(function* (caller: Caller, body: CreateInvitesRequest) {
        const { team } = yield* access.authorize(caller, body.nanoid, "invites.create")
        const now = yield* nowIso
        const expires_at = yield* later(settings.ttlMillis)
        const made = yield* Effect.forEach(body.invites, (entry) =>
          Effect.gen(function* () {
            const { token, hash } = yield* makeInviteToken
            const invite: Invite = {
              nanoid: yield* ids.make("invite"),
              team_nanoid: team.nanoid,
              company_nanoid: team.company_nanoid,
              kind: "member",
              role: body.role,
              email: entry.email,
              invitee_name: inviteeNameOf(entry),
              inviter_nanoid: caller.nanoid,
              anonymous: body.anonymous,
              ...(entry.prefill === undefined ? {} : { prefill: entry.prefill }),
              state: "pending",
              token_hash: hash,
              expires_at,
              created_at: now,
              updated_at: now
            }
            return { invite, mail: yield* mailFor(invite, token, team) }
          })
        )
        yield* invites.create(
          made.map((m) => m.invite),
          made.map((m) => m.mail)
        )
        return { nanoids: made.map((m) => m.invite.nanoid) }
      })

      const list = Effect.fn("Invites.list")(function* (caller: Caller, nanoid: TeamId | CompanyId) {
        if (nanoid.startsWith("te-")) {
          const { team } = yield* access.authorize(caller, nanoid as TeamId, "invites.read")
          const company = yield* companies.findById(team.company_nanoid)
          const pending = yield* invites.listByTeams([team.nanoid], ["pending"])
          return yield* viewsOf(pending, new Map([[team.nanoid, team]]), () => ({
            name: Option.match(company, { onNone: () => "", onSome: (c) => c.name }),
            avatar: Option.match(company, { onNone: () => "", onSome: (c) => c.avatar })
          }))
        }
        const companyId = nanoid as CompanyId
        const company = yield* companies.findById(companyId)
        if (Option.isNone(company)) return yield* new CompanyNotFound({ company: companyId })
        const active = (yield* teams.listByCompany(companyId)).filter((t) => t.status === "active")
        const mine = new Map((yield* memberships.listByUser(caller.nanoid)).map((m) => [m.team_nanoid, m.role]))
        const managedTeams = active.filter((t) => {
          const role = mine.get(t.nanoid)
          return role !== undefined && isAllowed(role, "invites.read")
        })
        if (managedTeams.length === 0) {
          return yield* new InsufficientPermissions({ message: "You manage no team of this company" })
        }
        const pending = yield* invites.listByTeams(
          managedTeams.map((t) => t.nanoid),
          ["pending"]
        )
        return yield* viewsOf(pending, new Map(managedTeams.map((t) => [t.nanoid, t])), () => ({
          name: company.value.name,
          avatar: company.value.avatar
        }))
      })

      const accept = Effect.fn("Invites.accept")(function* (caller: Caller, body: AnswerInviteRequest) {
        const { invite, tokenHash } = yield* opened(caller, body)
        // A manager invite is accepted by the admin's signed grant (PUT /v2/invites/manager), so that the role is on
        // the chain before it is a membership; its invitee may only decline (decision 0070).
        if (invite.kind === "manager") {
          return yield* new IllegalTransition({
            machine: "manager invite",
            from: invite.state,
            trigger: "be accepted by its invitee: the admin's signed grant accepts it"
          })
        }
        const team = yield* teams.findById(invite.team_nanoid)
        if (Option.isNone(team) || team.value.status !== "active") {
          return yield* new TeamNotFound({ team: invite.team_nanoid })
        }
        if (Option.isSome(yield* memberships.find(invite.team_nanoid, caller.nanoid))) {
          return yield* new AlreadyTeamMember({ team: invite.team_nanoid })
        }
        const now = yield* nowIso
        const role = membershipRoleOf(invite.role)
        // An admin invite was addressed to a wallet: the member keeps the e-mail they have, if any.
        const email =
          invite.kind === "admin"
            ? Option.match(yield* users.findById(caller.nanoid), { onNone: () => "", onSome: (u) => u.email })
            : invite.email
        const membership: Membership = {
          nanoid: yield* ids.make("membership"),
          team_nanoid: invite.team_nanoid,
          user_nanoid: caller.nanoid,
          role,
          email,
          created_at: now
        }
        const accepted: Invite = { ...invite, state: "accepted", user_nanoid: caller.nanoid, updated_at: now }
        const events: Array<DomainEvent> = [
          yield* eventOf(accepted, team.value, {
            type: "invite.accepted",
            data: invitePayloadOf(accepted, "accepted")
          }),
          yield* eventOf(accepted, team.value, {
            type: "team.member_added",
            data: {
              team_nanoid: invite.team_nanoid,
              user_nanoid: caller.nanoid,
              relationship_nanoid: membership.nanoid,
              email,
              role,
              invite_nanoid: invite.nanoid
            }
          })
        ]
        const stored = yield* invites
          .transition(invite.nanoid, "pending", "accepted", {
            tokenHash,
            patch: { user_nanoid: caller.nanoid, updated_at: now },
            membership,
            ...(invite.kind === "admin" ? {} : { userEmail: { user: caller.nanoid, email: invite.email } }),
            events
          })
          .pipe(
            Effect.catchTags({
              StaleState: () => whyStale(invite.nanoid),
              AlreadyMember: () => Effect.fail(new AlreadyTeamMember({ team: invite.team_nanoid }))
            })
          )
        return outcomeOf(stored)
      })

      const reject = Effect.fn("Invites.reject")(function* (caller: Caller, body: AnswerInviteRequest) {
        const { invite, tokenHash } = yield* opened(caller, body)
        const team = yield* teams.findById(invite.team_nanoid)
        const now = yield* nowIso
        const rejected: Invite = { ...invite, state: "rejected", user_nanoid: caller.nanoid, updated_at: now }
        const event = yield* eventOf(rejected, Option.getOrUndefined(team), {
          type: "invite.rejected",
          data: invitePayloadOf(rejected, "rejected")
        })
        const stored = yield* invites
          .transition(invite.nanoid, "pending", "rejected", {
            tokenHash,
            patch: { user_nanoid: caller.nanoid, updated_at: now },
            events: [event]
          })
          .pipe(
            Effect.catchTags({
              StaleState: () => whyStale(invite.nanoid),
              AlreadyMember: (error) => Effect.die(error)
            })
          )
        return outcomeOf(stored)
      })

      const revoke = Effect.fn("Invites.revoke")(function* (caller: Caller, id: InviteId) {
        const { invite } = yield* managed(caller, id)
        const closed = closedReason(invite, yield* nowIso)
        if (closed !== undefined) return yield* closed
        const stored = yield* invites
          .transition(id, "pending", "revoked", { patch: { updated_at: yield* nowIso } })
          .pipe(
            Effect.catchTags({
              StaleState: () => whyStale(id),
              AlreadyMember: (error) => Effect.die(error)
            })
          )
        return outcomeOf(stored)
      })

      const resend = Effect.fn("Invites.resend")(function* (caller: Caller, id: InviteId) {
        const { invite, team } = yield* managed(caller, id)
        const closed = closedReason(invite, yield* nowIso)
        if (closed !== undefined) return yield* closed
        // An admin invite is answered by its wallet signed in, never by a mailed link.
        if (invite.kind === "admin") {
          return yield* new IllegalTransition({ machine: "admin invite", from: invite.state, trigger: "resend" })
        }
        const { token, hash } = yield* makeInviteToken
        const renewed: Invite = {
          ...invite,
          token_hash: hash,
          expires_at: yield* later(settings.ttlMillis),
          updated_at: yield* nowIso
        }
        const stored = yield* invites
          .transition(id, "pending", "pending", {
            tokenHash: invite.token_hash,
            patch: { token_hash: hash, expires_at: renewed.expires_at, updated_at: renewed.updated_at },
            mails: [yield* mailFor(renewed, token, team)]
          })
          .pipe(
            Effect.catchTags({
              StaleState: () => whyStale(id),
              AlreadyMember: (error) => Effect.die(error)
            })
          )
        return outcomeOf(stored)
      })

      const expireDue = Effect.fn("Invites.expireDue")(function* (limit: number) {
        const due = yield* invites.listExpired(yield* nowIso, limit)
        let expired = 0
        for (const invite of due) {
          const team = yield* teams.findById(invite.team_nanoid)
          const now = yield* nowIso
          const moved: Invite = { ...invite, state: "expired", updated_at: now }
          const event = yield* eventOf(moved, Option.getOrUndefined(team), {
            type: "invite.expired",
            data: invitePayloadOf(moved, "expired")
          })
          // Another worker, or the invitee, may have moved it first: then there is nothing to do.
          const done = yield* invites
            .transition(invite.nanoid, "pending", "expired", { patch: { updated_at: now }, events: [event] })
            .pipe(
              Effect.as(true),
              Effect.catch(() => Effect.succeed(false))
            )
          if (done) expired++
        }
        return expired
      })

      return Invites.of({
        create: (caller, body) => create(caller, body).pipe(Effect.provide(context)),
        list: (caller, nanoid) => list(caller, nanoid).pipe(Effect.provide(context)),
        accept: (caller, body) => accept(caller, body).pipe(Effect.provide(context)),
        reject: (caller, body) => reject(caller, body).pipe(Effect.provide(context)),
        revoke: (caller, id) => revoke(caller, id).pipe(Effect.provide(context)),
        resend: (caller, id) => resend(caller, id).pipe(Effect.provide(context)),
        preview: (id, token) => preview(id, token),
        expireDue: (limit = 100) => expireDue(limit).pipe(Effect.provide(context))
      })
    })
  )
}

/** An invite event's kind and payload. */
interface NewInviteEvent {
  readonly type: "invite.accepted" | "invite.rejected" | "invite.expired" | "team.member_added"
  readonly data: Record<string, unknown>
}
