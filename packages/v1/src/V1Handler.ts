/**
 * v1 calls carried out on v2 (DESIGN §5b): the v1 routes (paths, verbs, shapes of reference/rise-api.md with
 * `rise` -> `svc`, errors `{message}`) answered through the typed client derived from the HttpApi contract, with ids
 * mapped both ways through the id map, which is the only state. The migration tool's proxy serves it over its own
 * HTTP server onto a v2 URL; the API serves it in-process on `/v1` (decision 0074), its client dispatching into the
 * API's own routes.
 *
 * - Sign-in: v1's SIWE (`/v1/auth/api/siwe` and `/v1/api/siwe`) is v2's; the v1 token is the v2 JWT.
 * - Payments: `PUT /v1/payments/batch-pay` (and `pay`, and `intents` without a signature) answers typed data for
 *   `eth_signTypedData_v4` (`data.message` is the request); sending it back as `request` with `signature` (v1's
 *   `POST`) executes it, once: v2 spends the salt.
 */
import { Api, type ApiClient, makeApiClient, statusOfApiError } from "@svc/contract"
import type { TeamId } from "@svc/domain/Ids"
import type { V1IdMap } from "@svc/domain/migration"
import { maxPaymentsPage, type PaymentItem, tokenAmountOf } from "@svc/domain/payment"
import { Pagination, TeamUser } from "@svc/domain/user"
import { Effect, type Layer, Option, Schema } from "effect"
import type { HttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { getTypesForEIP712Domain } from "viem"
import { cachedIdMap } from "./CachedV1IdMap.ts"
import { translate as findRoute } from "./V1Routes.ts"
import {
  balanceQuery,
  invitesCreation,
  invitesQuery,
  mapResolver,
  memberPath,
  paymentsQuery,
  paymentTranslation,
  siweChallenge,
  siweVerify,
  teamPath,
  Untranslatable,
  type V1IdResolver
} from "./V1Translation.ts"

// biome-ignore lint/suspicious/noExplicitAny: v1 bodies and v2 answers are read field by field
export type Json = any

/** A v1 answer: status and JSON body. */
export interface V1Answer {
  readonly status: number
  readonly body: unknown
}

export const ok = (data: unknown): V1Answer => ({ status: 200, body: { data } })
export const v1Error = (status: number, message: string): V1Answer => ({ status, body: { message } })

/** A v2 failure as the v1 error it becomes: same status, `{message}`; 501 says v1 cannot have it from this v2. */
const fromV2Failure = (operation: string, error: Json): V1Answer => {
  if (error instanceof Untranslatable) return v1Error(error.status, error.reason)
  const status = statusOfApiError(error)
  if (status === undefined && error?._tag === "HttpClientError" && error?.reason?._tag === "TransportError")
    return v1Error(502, `${operation}: the v2 API could not be reached`)
  if (status === undefined)
    return v1Error(502, `${operation}: the v2 API did not answer as expected (${String(error?.message ?? error)})`)
  if (status === 501) return v1Error(501, `${operation} is not available yet: the v2 API answered "${error.data}"`)
  return v1Error(status, String(error.data))
}

/** The bundle as `eth_signTypedData_v4` takes it: `types` with `EIP712Domain`, `primaryType`, `message`. */
const signable = (bundle: Json) => ({
  domain: bundle.domain,
  types: { EIP712Domain: getTypesForEIP712Domain({ domain: bundle.domain }), ...bundle.types },
  primaryType: bundle.primary_type,
  message: bundle.typed_data
})

const isAddress = (v: unknown): v is string => typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v)
const idNumber = (v1: string) => (/^[0-9]{1,15}$/.test(v1) ? Number(v1) : v1)

/** The answer of `GET /v2/teams/{team_nanoid}/users`, as the contract encodes it. */
const TeamUsersAnswer = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ users: Schema.Array(TeamUser), pagination: Pagination })
})
const decodeTeamUsers = HttpApiClient.decodeResponse(Api, { group: "teams", endpoint: "users" })

/** Keeps the clients of recent tokens: building one per call would cost more than the call. */
export const clientsFor = (target: string, httpClient: Layer.Layer<HttpClient.HttpClient>) => {
  const clients = new Map<string, ApiClient>()
  return (token: string | undefined) =>
    Effect.gen(function* () {
      const key = token ?? ""
      const cached = clients.get(key)
      if (cached !== undefined) return cached
      const client = yield* makeApiClient({ baseUrl: target, token, httpClient })
      if (clients.size >= 1000) clients.delete(clients.keys().next().value as string)
      clients.set(key, client)
      return client
    })
}

/** The request side of one v1 call. */
interface V1Call {
  readonly method: string
  readonly route: string
  readonly params: Record<string, string>
  readonly query: Record<string, string | Array<string>>
  readonly body: Json
  readonly client: ApiClient
  readonly token: string | undefined
}

/**
 * What the API serving `/v1` itself answers without the HTTP form of v2 (decision 0074): the hot path of v1 clients,
 * read from the use case as the v2 route reads it, for the caller the token names.
 */
export interface V1Local {
  /** The users of `GET /v2/teams/{team}/users` (no filter, no page), or the API error that route answers. */
  readonly teamUsers: (token: string, team: TeamId) => Effect.Effect<ReadonlyArray<Json>, unknown>
}

/**
 * Handles v1 calls: `(method, url, body, client, token)` answers the v1 answer and the v1 route it matched (`METHOD
 * /v1/path/{param}`, for the per-route counts), carried out by `client` as the caller `token` names, or by `local`
 * where it answers.
 */
export const makeV1Handler = (stored: V1IdMap["Service"], local?: V1Local) => {
  const ids = cachedIdMap(stored)
  const fromMap = mapResolver(ids)

  /** Records what v2 shows of an account address, ignoring a mapping made otherwise already. */
  const learnSvcid = (address: string, nanoid: string) =>
    ids.record([{ kind: "svcid", v1: address.toLowerCase(), nanoid }]).pipe(Effect.ignore)

  /** The v1 svcid of a team: mapped, else its account address (learnt from v2's balance). */
  const teamSvcid = (client: ApiClient, team: string) =>
    Effect.gen(function* () {
      const known = yield* ids.v1Of("svcid", team)
      if (Option.isSome(known)) return known.value
      const balance = yield* client.balance.get({ query: { nanoid: team as TeamId } }).pipe(Effect.option)
      if (Option.isNone(balance)) return ""
      const address = balance.value.data.svc_account_address
      yield* learnSvcid(address, team)
      return address.toLowerCase()
    })

  /** A team user's account address, the svcid v1 knew it by: its svcid when that is an address, else its account. */
  const addressOf = (user: Json): string | undefined =>
    isAddress(user.svcid)
      ? user.svcid.toLowerCase()
      : isAddress(user.svc_account)
        ? user.svc_account.toLowerCase()
        : undefined

  /** The v1 form of team users (one step for the numbers, one for the svcids); svcids are learnt on the way. */
  const talentOf = (users: ReadonlyArray<Json>) =>
    Effect.gen(function* () {
      const nanoids = users.map((user) => user.nanoid as string)
      const numbers = yield* ids.allocateMany("user", nanoids)
      const svcids = yield* ids.v1IdsOf("svcid", nanoids)
      const learnt = users.flatMap((user) => {
        const address = addressOf(user)
        return svcids.has(user.nanoid) || address === undefined ? [] : [{ address, nanoid: user.nanoid as string }]
      })
      if (learnt.length > 0)
        yield* ids
          .record(learnt.map(({ address, nanoid }) => ({ kind: "svcid" as const, v1: address, nanoid })))
          .pipe(Effect.catch(() => Effect.forEach(learnt, ({ address, nanoid }) => learnSvcid(address, nanoid))))
      return users.map((user, i) => ({
        id: idNumber(numbers[i] ?? ""),
        alias: "",
        firstname: user.first_name,
        middlename: user.middle_name,
        lastname: user.last_name,
        svcId: svcids.get(user.nanoid) ?? addressOf(user) ?? user.svcid,
        email: user.email,
        nanoid: user.nanoid,
        role: user.role
      }))
    })

  /** Resolution with v2 as a fallback: svcids the map does not know yet are learnt from the team's users and teams. */
  const resolverFor = (client: ApiClient): V1IdResolver => ({
    team: (v1) =>
      fromMap.team(v1).pipe(
        Effect.catchTag("Untranslatable", (refused) =>
          isAddress(v1)
            ? Effect.gen(function* () {
                const mine = yield* client.teams.listMine().pipe(Effect.orElseSucceed(() => ({ data: { teams: [] } })))
                for (const team of mine.data.teams) yield* teamSvcid(client, team.nanoid)
                return yield* fromMap.team(v1)
              })
            : Effect.fail(refused)
        )
      ),
    user: (v1, team) =>
      fromMap.user(v1).pipe(
        Effect.catchTag("Untranslatable", (refused) =>
          isAddress(v1) && team !== undefined
            ? Effect.gen(function* () {
                const users = yield* client.teams
                  .users({ params: { team_nanoid: team }, query: {} })
                  .pipe(Effect.orElseSucceed(() => ({ data: { users: [] } })))
                yield* talentOf(users.data.users)
                return yield* fromMap.user(v1)
              })
            : Effect.fail(refused)
        )
      ),
    account: (v1) =>
      fromMap.account(v1).pipe(
        Effect.catchTag("Untranslatable", (refused) =>
          isAddress(v1)
            ? Effect.gen(function* () {
                const mine = yield* client.teams.listMine().pipe(Effect.orElseSucceed(() => ({ data: { teams: [] } })))
                for (const team of mine.data.teams) yield* teamSvcid(client, team.nanoid)
                return yield* fromMap.account(v1)
              })
            : Effect.fail(refused)
        )
      )
  })

  /** A payment call: typed data to sign, or, with `request` and `signature`, its execution. */
  const payment = (call: V1Call, resolver: V1IdResolver) =>
    Effect.gen(function* () {
      const translated = yield* paymentTranslation(resolver, call.body, { intents: call.route.includes("intents") })
      if (translated.execute !== undefined) {
        const executed = yield* call.client.payments.execute({ payload: translated.execute })
        return ok({ transaction: executed.data.transaction, payments: executed.data.payments })
      }
      const issued = yield* call.client.payments.create({ payload: translated.create })
      return ok(signable(issued.data))
    })

  const dispatch = (call: V1Call): Effect.Effect<V1Answer, unknown> =>
    Effect.gen(function* () {
      const { client, params, query, body } = call
      const resolver = resolverFor(client)
      switch (`${call.method} ${call.route}`) {
        case "GET /v1/api/siwe":
        case "GET /v1/auth/api/siwe": {
          const challenge = yield* client.auth.siwe({ query: yield* siweChallenge(query) })
          return ok({ message: challenge.data.siwe, wallet: query.wallet })
        }
        case "POST /v1/api/siwe":
        case "POST /v1/auth/api/siwe": {
          const verified = yield* client.auth.verify({ payload: yield* siweVerify(body) })
          return ok({ token: verified.data.jwt })
        }
        case "GET /v1/teams": {
          const mine = yield* client.teams.listMine()
          const teams = []
          for (const team of mine.data.teams) {
            const id = yield* ids.allocate("team", team.nanoid)
            teams.push({
              id: idNumber(id),
              name: team.name,
              svcId: yield* teamSvcid(client, team.nanoid),
              nanoid: team.nanoid
            })
          }
          return ok(teams)
        }
        case "GET /v1/teams/{teamId}/talent": {
          const path = yield* teamPath(resolver, params.team_nanoid ?? "")
          if (local !== undefined)
            return ok(yield* talentOf(yield* local.teamUsers(call.token ?? "", path.team_nanoid)))
          // The hot path of v1 clients: the v2 answer is read as the server encoded it with the same contract, and
          // only a failure goes through the contract's decoder (for its typed error).
          const response = yield* client.teams.users({ params: path, query: {}, responseMode: "response-only" })
          if (response.status !== 200) {
            // Fails with the contract's error for that status; a success under another status is not v2's.
            yield* decodeTeamUsers(response)
            return v1Error(502, `GET /v1/teams/{teamId}/talent: the v2 API answered ${response.status}`)
          }
          const users = (yield* response.json) as typeof TeamUsersAnswer.Encoded
          return ok(yield* talentOf(users.data.users))
        }
        case "GET /v1/teams/{teamId}/talent/{talentId}": {
          const path = yield* memberPath(resolver, params.team_nanoid ?? "", params.user_nanoid ?? "")
          const summary = yield* client.teams.memberSummary({ params: path })
          const user = summary.data.user
          const id = yield* ids.allocate("user", user.nanoid)
          return ok({
            id: idNumber(id),
            nanoid: user.nanoid,
            firstname: user.first_name,
            middlename: user.middle_name,
            lastname: user.last_name,
            email: user.email,
            svcId: Option.getOrElse(yield* ids.v1Of("svcid", user.nanoid), () => ""),
            wallet: user.blockchain_address,
            relationship_type: summary.data.relationship_type,
            pay_schedules: summary.data.pay_schedules
          })
        }
        case "DELETE /v1/teams/{teamId}/talent/{talentId}": {
          const path = yield* memberPath(resolver, params.team_nanoid ?? "", params.user_nanoid ?? "")
          const removed = yield* client.teams.removeMember({ params: path })
          return ok({ id: idNumber(params.user_nanoid ?? ""), removed: removed.data.removed })
        }
        case "GET /v1/payments": {
          // v1 answered every payment at once; v2 pages them (an unpaged query answers the newest 1000).
          const v2Query = yield* paymentsQuery(resolver, query)
          const items: Array<PaymentItem> = []
          let cursor: string | undefined
          do {
            const page = yield* client.payments.query({
              query: { ...v2Query, limit: maxPaymentsPage, ...(cursor === undefined ? {} : { cursor }) }
            })
            items.push(...page.data.items)
            cursor = page.data.next_cursor ?? undefined
          } while (cursor !== undefined)
          return ok(items)
        }
        case "GET /v1/svcid/{svc_id}/balance":
        case "GET /v1/riseid/{rise_id}/balance": {
          const answer = yield* client.balance.get({ query: yield* balanceQuery(resolver, params.nanoid ?? "") })
          const balances = answer.data.balances.map((b) => ({
            currency: b.currency,
            balance_cents: b.balance_cents,
            balance: tokenAmountOf(b.balance_cents)
          }))
          return ok({
            svcId: answer.data.svc_account_address.toLowerCase(),
            balance: balances.find((b) => b.currency === "USD")?.balance ?? "0",
            balances
          })
        }
        case "GET /v1/invites": {
          const answer = yield* client.invites.list({ query: yield* invitesQuery(resolver, query) })
          return ok(answer.data)
        }
        case "POST /v1/invites":
        case "POST /v1/invites/warmed": {
          const creation = yield* invitesCreation(resolver, body, call.route.endsWith("warmed"))
          switch (creation._tag) {
            case "members": {
              const answer = yield* client.invites.create({ payload: creation.request })
              return ok({
                invited: creation.request.invites.map((i) => i.email),
                nanoids: answer.data.nanoids,
                failed: creation.skipped,
                countAdded: answer.data.nanoids.length
              })
            }
            case "managers": {
              const answer = yield* client.invites.createManager({ payload: creation.request })
              return ok({ ...signable(answer.data), invites: answer.data.invites })
            }
            case "managersExecute": {
              const answer = yield* client.invites.executeManager({ payload: creation.request })
              return ok(answer.data)
            }
          }
          break
        }
        default:
          return yield* payment(call, resolver)
      }
      return v1Error(500, "unhandled route")
    })

  return (method: string, url: URL, body: Json, client: ApiClient, token: string | undefined) =>
    Effect.gen(function* () {
      const found = findRoute(method, url.pathname)
      if (Option.isNone(found))
        return {
          route: undefined,
          answer: v1Error(404, `${method} ${url.pathname} has no v2 equivalent: see SPEC §9.6 for what v2 serves`)
        }
      const { route, params } = found.value
      const query: Record<string, string | Array<string>> = {}
      for (const key of new Set(url.searchParams.keys())) {
        const values = url.searchParams.getAll(key)
        query[key] = values.length === 1 ? (values[0] as string) : values
      }
      const operation = `${route.v1.method} ${route.v1.path}`
      const answer = yield* dispatch({
        method: route.v1.method,
        route: route.v1.path,
        params,
        query,
        body,
        client,
        token
      }).pipe(
        Effect.catch((error) => Effect.succeed(fromV2Failure(operation, error))),
        Effect.catchDefect((defect) =>
          Effect.succeed(v1Error(502, `${operation}: the v2 API could not be reached (${String(defect)})`))
        )
      )
      return { route: operation, answer }
    })
}

/** The largest v1 request body read (1 MiB). */
export const maxV1Body = 1024 * 1024

/** What every v1 answer carries: `Deprecation` (and `Sunset` when configured) and the successor's docs. */
export const v1Headers = (options: {
  /** When v1 was deprecated (`Deprecation: @<unix seconds>`); `Deprecation: true` without it. */
  readonly deprecatedSince?: Date | undefined
  /** When v1 stops answering (`Sunset`, an HTTP date). */
  readonly sunset?: Date | undefined
  /** The v2 API's base URL. */
  readonly successor: string
}): Record<string, string> => ({
  deprecation:
    options.deprecatedSince === undefined ? "true" : `@${Math.floor(options.deprecatedSince.getTime() / 1000)}`,
  ...(options.sunset === undefined ? {} : { sunset: options.sunset.toUTCString() }),
  link: `<${options.successor.replace(/\/$/, "")}/docs>; rel="successor-version"`
})

/** v1 calls per route (`METHOD /v1/path/{param}`) since `since`, as `GET /v1/_stats` answers them. */
export const v1Stats = () => {
  const counts = new Map<string, number>()
  const since = new Date().toISOString()
  return {
    count: (route: string | undefined) => {
      const key = route ?? "unmatched"
      counts.set(key, (counts.get(key) ?? 0) + 1)
    },
    snapshot: () => Object.fromEntries(counts),
    answer: () => ok({ since, routes: Object.fromEntries(counts) })
  }
}
