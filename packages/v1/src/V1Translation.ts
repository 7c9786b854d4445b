/**
 * The request side of v1 to v2, one function per v1 operation (SPEC §9.6, shapes of reference/rise-api.md with
 * `rise` -> `svc`): each maps the v1 ids to nanoids through a `V1IdResolver` and decodes the v2 request with the
 * domain's own schema, so what it answers is exactly what the v2 API accepts. `translate` (lines) and the proxy
 * (live calls) both use these functions.
 *
 * v1 clients of the real service send `rise_id`/`riseId`; the brand-replaced v1 says `svc_id`/`svcId`: both are read.
 */
import { SiweChallengeQuery, SiweVerifyRequest } from "@svc/domain/auth"
import type { TeamId, UserId } from "@svc/domain/Ids"
import {
  CreateInvitesRequest,
  CreateManagerInvitesRequest,
  ExecuteManagerInvitesRequest,
  InvitesQuery
} from "@svc/domain/invite"
import { V1IdMap } from "@svc/domain/migration"
import {
  BalanceQuery,
  CreatePaymentsRequest,
  ExecutePaymentsRequest,
  PaymentsQuery,
  unitsPerCent as unitsPerCentOf
} from "@svc/domain/payment"
import { Effect, Option, Schema, SchemaIssue } from "effect"

/** Why a v1 request has no v2 form: the reason, and the HTTP status the proxy answers it with. */
export class Untranslatable extends Schema.TaggedError<Untranslatable>()("Untranslatable", {
  reason: Schema.String,
  status: Schema.Number
}) {
  override get message() {
    return this.reason
  }
}

const refuse = (reason: string, status = 400) => Effect.fail(new Untranslatable({ reason, status }))

/** v1 ids to nanoids: numeric ids, svcid addresses, or nanoids (v1 accepted those too) passed through. */
export interface V1IdResolver {
  readonly team: (v1: string) => Effect.Effect<TeamId, Untranslatable>
  /** `team` lets a resolver look a recipient up among the team's members when the map does not know it yet. */
  readonly user: (v1: string, team?: TeamId) => Effect.Effect<UserId, Untranslatable>
  /** Whatever has an account: a team, a user or a company (balance). */
  readonly account: (v1: string) => Effect.Effect<string, Untranslatable>
}

const isAddress = (v: string) => /^0x[0-9a-fA-F]{40}$/.test(v)
const isNumber = (v: string) => /^[0-9]{1,15}$/.test(v)

/** A resolver on the id map alone: what the map does not know is refused (404), naming the id. */
export const mapResolver = (ids: V1IdMap["Service"]): V1IdResolver => {
  const lookup = (what: "team" | "user" | "account", prefix: RegExp, v1: string) =>
    Effect.gen(function* () {
      if (prefix.test(v1)) return v1
      const found = isNumber(v1)
        ? what === "account"
          ? Option.none()
          : yield* ids.nanoidOf(what, String(Number(v1)))
        : isAddress(v1)
          ? yield* ids.nanoidOf("svcid", v1.toLowerCase())
          : Option.none<string>()
      if (Option.isSome(found) && prefix.test(found.value)) return found.value
      const kind = what === "account" ? "svcid" : what === "team" ? "team id" : "member id"
      return yield* refuse(`Unknown v1 ${kind} ${v1}: import it with \`ids import\` or let the proxy see it first`, 404)
    })
  return {
    team: (v1) => lookup("team", /^te-[0-9A-Za-z_-]{12}$/, v1) as Effect.Effect<TeamId, Untranslatable>,
    user: (v1) => lookup("user", /^us-[0-9A-Za-z_-]{12}$/, v1) as Effect.Effect<UserId, Untranslatable>,
    account: (v1) => lookup("account", /^(te|us|co)-[0-9A-Za-z_-]{1,61}$/, v1)
  }
}

/** The resolver of the map in context. */
export const currentMapResolver = Effect.map(V1IdMap, mapResolver)

// biome-ignore lint/suspicious/noExplicitAny: v1 bodies are whatever a v1 client sent; each field is checked here
type Json = any

/** Decodes a v2 request with the domain's schema; its first issue is the reason when it does not fit. */
const v2 = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, value: unknown) =>
  Schema.decodeUnknownEffect(schema)(value).pipe(
    Effect.mapError(
      (error) =>
        new Untranslatable({
          reason: `Not a valid v2 request: ${SchemaIssue.makeFormatterDefault()(error.issue)}`,
          status: 400
        })
    )
  )

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

const firstOf = (source: Json, names: ReadonlyArray<string>): string | undefined => {
  for (const name of names) {
    const value = text(Array.isArray(source?.[name]) ? source[name][0] : source?.[name])
    if (value !== undefined && value !== "") return value
  }
  return undefined
}

const svcIdFields = ["svc_id", "svcId", "svcid", "rise_id", "riseId", "riseid"]

/** `GET /v1/api/siwe?wallet=&svc_id=`: the v2 challenge query. `impersonate` has no v2 form. */
export const siweChallenge = (query: Json) =>
  Effect.gen(function* () {
    if (firstOf(query, ["impersonate"]) !== undefined)
      return yield* refuse("`impersonate` has no v2 equivalent: sign in with the manager's own wallet", 501)
    const svcid = firstOf(query, svcIdFields)
    return yield* v2(SiweChallengeQuery, {
      wallet: firstOf(query, ["wallet"]),
      ...(svcid === undefined ? {} : { svcid })
    })
  }) satisfies Effect.Effect<SiweChallengeQuery, Untranslatable>

/** `POST /v1/api/siwe {wallet, message, signature}`: the v2 verify body, its nonce read from the message. */
export const siweVerify = (body: Json) =>
  Effect.gen(function* () {
    const message = text(body?.message)
    const nonce = message === undefined ? undefined : /^Nonce: (\S+)$/m.exec(message)?.[1]
    if (nonce === undefined) return yield* refuse("The message has no `Nonce: ` line: sign the message GET answered")
    return yield* v2(SiweVerifyRequest, { message, sig: text(body?.signature), nonce })
  }) satisfies Effect.Effect<SiweVerifyRequest, Untranslatable>

/** `GET /v1/teams/{teamId}/talent`: the team's nanoid. */
export const teamPath = (resolver: V1IdResolver, teamId: string) =>
  Effect.map(resolver.team(teamId), (team_nanoid) => ({ team_nanoid }))

/** `GET` and `DELETE /v1/teams/{teamId}/talent/{talentId}`: the team's and the member's nanoids. */
export const memberPath = (resolver: V1IdResolver, teamId: string, talentId: string) =>
  Effect.gen(function* () {
    const team_nanoid = yield* resolver.team(teamId)
    const user_nanoid = yield* resolver.user(talentId, team_nanoid)
    return { team_nanoid, user_nanoid }
  })

/** `GET /v1/payments?team_id=&state=&query_type=&recipient=&start_date=&end_date=`: the v2 payments query. */
export const paymentsQuery = (resolver: V1IdResolver, query: Json) =>
  Effect.gen(function* () {
    const team = firstOf(query, ["team_id", "teamId", "team_nanoid", ...svcIdFields])
    if (team === undefined) return yield* refuse("The payments query needs `team_id` (a v1 team id or svcid)")
    const team_nanoid = yield* resolver.team(team)
    const recipient = firstOf(query, ["recipient", "talent_id", "talentId"])
    const rest: Record<string, string> = {}
    for (const name of ["state", "query_type", "start_date", "end_date"]) {
      const value = firstOf(query, [name])
      if (value !== undefined) rest[name] = value
    }
    return yield* v2(PaymentsQuery, {
      team_nanoid,
      ...rest,
      ...(recipient === undefined ? {} : { recipient: yield* resolver.user(recipient, team_nanoid) })
    })
  })

/** `GET /v1/svcid/{svc_id}/balance`: whose balance. */
export const balanceQuery = (resolver: V1IdResolver, svcId: string) =>
  Effect.flatMap(resolver.account(svcId), (nanoid) => v2(BalanceQuery, { nanoid }))

/** `GET /v1/invites?team_id=`: the v2 invites query. */
export const invitesQuery = (resolver: V1IdResolver, query: Json) =>
  Effect.gen(function* () {
    const team = firstOf(query, ["team_id", "teamId", "nanoid", "company_svcid", "company_riseid", ...svcIdFields])
    if (team === undefined) return yield* refuse("The invites list needs `team_id` (a v1 team id or svcid)")
    return yield* v2(InvitesQuery, { nanoid: yield* resolver.team(team) })
  })

const managerRoles = new Set(["team_admin", "team_finance_admin", "team_viewer"])
const memberRoles: Record<string, string> = {
  contractor: "contractor",
  team_contractor: "team_contractor",
  employee: "team_employee",
  team_employee: "team_employee"
}

/** What `POST /v1/invites` becomes: member invites, or the first step of manager invites. */
export type InvitesCreation =
  | {
      readonly _tag: "members"
      readonly request: CreateInvitesRequest
      readonly skipped: ReadonlyArray<V1InviteFailure>
    }
  | { readonly _tag: "managers"; readonly request: CreateManagerInvitesRequest }
  | { readonly _tag: "managersExecute"; readonly request: ExecuteManagerInvitesRequest }

/** A v1 invitee v2 cannot invite (v2 invites by e-mail), as v1's `failed` lists it. */
export interface V1InviteFailure {
  readonly invite: string
  readonly error: string
}

/**
 * `POST /v1/invites {inviteList, anonymous, team_id | company_svcid, role}` and `POST /v1/invites/warmed` (entries
 * with a prefill). Manager roles need `{email, wallet}` entries and go through the signed manager flow: without
 * `request` and `signature` they answer the typed data to sign, with them they execute it.
 */
export const invitesCreation = (resolver: V1IdResolver, body: Json, warmed: boolean) =>
  Effect.gen(function* () {
    const team = firstOf(body, ["team_id", "teamId", "nanoid", "company_svcid", "company_riseid", ...svcIdFields])
    if (team === undefined) return yield* refuse("Invites need `team_id` or `company_svcid` naming a v2 team")
    const nanoid = yield* resolver.team(team)
    const role = text(body?.role) ?? "contractor"
    const list: ReadonlyArray<Json> = Array.isArray(body?.inviteList) ? body.inviteList : []
    if (list.length === 0) return yield* refuse("`inviteList` must name at least one invitee")
    if (managerRoles.has(role)) {
      if (body?.request !== undefined || body?.signature !== undefined) {
        const request = yield* v2(ExecuteManagerInvitesRequest, {
          invites: body?.invites,
          signer: text(body?.wallet),
          typed_data: body?.request,
          signature: text(body?.signature)
        })
        return { _tag: "managersExecute", request } satisfies InvitesCreation
      }
      const invites = list.map((entry) => ({ email: entry?.email, role, wallet: entry?.wallet ?? entry?.account }))
      const request = yield* v2(CreateManagerInvitesRequest, { nanoid, invites })
      return { _tag: "managers", request } satisfies InvitesCreation
    }
    const v2Role = memberRoles[role]
    if (v2Role === undefined) return yield* refuse(`The v1 role "${role}" has no v2 equivalent`, 400)
    const invites: Array<Json> = []
    const skipped: Array<V1InviteFailure> = []
    for (const entry of list) {
      const email = typeof entry === "string" ? entry : text(entry?.email)
      if (email === undefined || !email.includes("@")) {
        skipped.push({
          invite: String(typeof entry === "string" ? entry : JSON.stringify(entry)),
          error: "v2 invites by e-mail only"
        })
        continue
      }
      const prefill: Record<string, string> = {}
      if (warmed && typeof entry === "object")
        for (const [v1Name, v2Name] of [
          ["first_name", "first_name"],
          ["firstname", "first_name"],
          ["last_name", "last_name"],
          ["lastname", "last_name"],
          ["phone", "phone"],
          ["company_name", "company_name"]
        ] as const) {
          const value = text(entry?.[v1Name])
          if (value !== undefined) prefill[v2Name] = value
        }
      invites.push(Object.keys(prefill).length === 0 ? { email } : { email, prefill })
    }
    if (invites.length === 0) return yield* refuse("No invitee has an e-mail address: v2 invites by e-mail only")
    const request = yield* v2(CreateInvitesRequest, {
      nanoid,
      invites,
      role: v2Role,
      anonymous: body?.anonymous === true
    })
    return { _tag: "members", request, skipped } satisfies InvitesCreation
  })

/** USDC base units per cent (6 decimals, DESIGN §5). */
/** 1 cent in USDC's base units (the domain's conversion). */
export const unitsPerCent = unitsPerCentOf()

/** Cents of a v1 amount in token base units; refused, never rounded, when it is not a whole number of cents. */
export const centsOf = (amount: unknown) =>
  Effect.gen(function* () {
    const units = text(amount)
    if (units === undefined || !/^[0-9]+$/.test(units))
      return yield* refuse(`The amount ${JSON.stringify(amount)} is not a whole number of token base units`)
    const value = BigInt(units)
    if (value % unitsPerCent !== 0n)
      return yield* refuse(
        `The amount ${units} is not a whole number of cents (USDC has 6 decimals: a multiple of ${unitsPerCent} base units); v2 pays whole cents and will not round`
      )
    return Number(value / unitsPerCent)
  })

/** What a v1 payment call becomes: the v2 creation body, who signs, and the execution when it was signed already. */
export interface PaymentTranslation {
  readonly create: CreatePaymentsRequest
  readonly signer: string
  /** The execution body, when the v1 call carried `request` (the typed data it signed) and `signature`. */
  readonly execute: ExecutePaymentsRequest | undefined
}

/**
 * `PUT`/`POST /v1/payments/batch-pay`, `/pay` and `/batch-pay/intents` `{wallet, svc_id, total_amount, payments:
 * [{recipient, amount, salt}]}` (`/pay`: one `recipient` and `amount` at the top): amounts in base units to cents,
 * recipients (svcid addresses, v1 member ids or nanoids) to user nanoids. v1's per-payment salts are not carried:
 * v2 issues one salt for the batch and executes it once. `intents` registers intents (`pay_now` false), due at
 * `pay_at_time` when given.
 */
export const paymentTranslation = (resolver: V1IdResolver, body: Json, options: { readonly intents: boolean }) =>
  Effect.gen(function* () {
    const team = firstOf(body, [...svcIdFields, "team_id", "teamId"])
    if (team === undefined) return yield* refuse("A payment needs `svc_id`, the paying team's svcid (or `team_id`)")
    const from = yield* resolver.team(team)
    const entries: ReadonlyArray<Json> = Array.isArray(body?.payments)
      ? body.payments
      : body?.recipient !== undefined
        ? [body]
        : []
    if (entries.length === 0) return yield* refuse("`payments` must list at least one `{recipient, amount}`")
    const to: Array<Json> = []
    let total = 0n
    for (const entry of entries) {
      const recipient = text(entry?.recipient)
      if (recipient === undefined) return yield* refuse("Every payment needs a `recipient` (an svcid address)")
      const amount_cents = yield* centsOf(entry?.amount)
      total += BigInt(amount_cents) * unitsPerCent
      to.push({
        to: yield* resolver.user(recipient, from),
        amount_cents,
        currency_symbol: "USD",
        invoice_description: text(entry?.invoice_description) ?? text(entry?.description) ?? "v1 payment"
      })
    }
    const declared = text(body?.total_amount)
    if (declared !== undefined && (!/^[0-9]+$/.test(declared) || BigInt(declared) !== total))
      return yield* refuse(`\`total_amount\` ${declared} is not the sum of the amounts (${total})`)
    const payAt = text(body?.pay_at_time ?? body?.payAtTime)
    const create = yield* v2(CreatePaymentsRequest, {
      from,
      to,
      pay_now: !options.intents,
      ...(options.intents && payAt !== undefined ? { pay_at_time: Number(payAt) } : {})
    })
    const signer = text(body?.wallet)
    if (signer === undefined) return yield* refuse("A payment needs `wallet`, the address that signs it")
    const signed = body?.request !== undefined || body?.signature !== undefined
    const execute = signed
      ? yield* v2(ExecutePaymentsRequest, {
          from,
          to,
          pay_now: create.pay_now,
          signer,
          typed_data: body?.request,
          signature: text(body?.signature)
        })
      : undefined
    return { create, signer, execute } satisfies PaymentTranslation
  })
