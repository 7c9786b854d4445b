/**
 * One handler per v1 route (the table in `V1Routes.ts`): each reads its v1 request, calls v2 through the typed client
 * as the caller, and answers v1's shape. A failure is left to the dispatcher, which answers it as v1's error.
 */
import { Api, type ApiClient } from "@svc/contract"
import type { TeamId } from "@svc/domain/Ids"
import { maxPaymentsPage, type PaymentItem, tokenAmountOf } from "@svc/domain/payment"
import { Effect, Option } from "effect"
import { HttpApiClient } from "effect/http-api"
import { ok, signable, type V1Answer, v1Error } from "./V1Answer.ts"
import { idNumber, type TalentSource, type V1Ids } from "./V1Ids.ts"
import {
  balanceQuery,
  invitesCreation,
  invitesQuery,
  memberPath,
  paymentsQuery,
  paymentTranslation,
  siweChallenge,
  siweVerify,
  teamPath,
  type V1IdResolver
} from "./V1Translation.ts"

/** The request side of one v1 call, with what answers it. */
export interface V1Call {
  readonly method: string
  readonly route: string
  readonly params: Readonly<Record<string, string>>
  readonly query: Readonly<Record<string, string | ReadonlyArray<string>>>
  /** The JSON body, read field by field by the translation (`V1Translation.ts`). */
  readonly body: unknown
  readonly client: ApiClient
  readonly token: string | undefined
  readonly resolver: V1IdResolver
  readonly ids: V1Ids
  readonly local: V1Local | undefined
}

/**
 * What the API serving `/v1` itself answers without the HTTP form of v2 (decision 0074): the hot path of v1 clients,
 * read from the use case as the v2 route reads it, for the caller the token names.
 */
export interface V1Local {
  /** The users of `GET /v2/teams/{team}/users` (no filter, no page), or the API error that route answers. */
  readonly teamUsers: (token: string, team: TeamId) => Effect.Effect<ReadonlyArray<TalentSource>, unknown>
}

/** A route's handler. */
type Handler = (call: V1Call) => Effect.Effect<V1Answer, unknown>

const decodeTeamUsers = HttpApiClient.decodeResponse(Api, { group: "teams", endpoint: "users" })

const siweMessage: Handler = ({ client, query }) =>
  Effect.gen(function* () {
    const challenge = yield* client.auth.siwe({ query: yield* siweChallenge(query) })
    return ok({ message: challenge.data.siwe, wallet: query.wallet })
  })

const siweSignIn: Handler = ({ client, body }) =>
  Effect.map(
    Effect.flatMap(siweVerify(body), (payload) => client.auth.verify({ payload })),
    (verified) => ok({ token: verified.data.jwt })
  )

const teams: Handler = ({ client, ids }) =>
  Effect.gen(function* () {
    const mine = yield* client.teams.listMine()
    const listed = []
    for (const team of mine.data.teams) {
      const id = yield* ids.ids.allocate("team", team.nanoid)
      listed.push({
        id: idNumber(id),
        name: team.name,
        svcId: yield* ids.teamSvcid(client, team.nanoid),
        nanoid: team.nanoid
      })
    }
    return ok(listed)
  })

const talent: Handler = ({ client, params, resolver, ids, local, token }) =>
  Effect.gen(function* () {
    const path = yield* teamPath(resolver, params.team_nanoid ?? "")
    if (local !== undefined) return ok(yield* ids.talentOf(yield* local.teamUsers(token ?? "", path.team_nanoid)))
    // The hot path of v1 clients: the v2 answer is read as the server encoded it with the same contract, and only a
    // failure goes through the contract's decoder (for its typed error).
    const response = yield* client.teams.users({ params: path, query: {}, responseMode: "response-only" })
    if (response.status !== 200) {
      // Fails with the contract's error for that status; a success under another status is not v2's.
      yield* decodeTeamUsers(response)
      return v1Error(502, `GET /v1/teams/{teamId}/talent: the v2 API answered ${response.status}`)
    }
    // Read as the server wrote it with the same contract (`TeamUser`'s encoded fields, which `TalentSource` names).
    const answer = (yield* response.json) as unknown as {
      readonly data: { readonly users: ReadonlyArray<TalentSource> }
    }
    return ok(yield* ids.talentOf(answer.data.users))
  })

const member: Handler = ({ client, params, resolver, ids }) =>
  Effect.gen(function* () {
    const path = yield* memberPath(resolver, params.team_nanoid ?? "", params.user_nanoid ?? "")
    const summary = yield* client.teams.memberSummary({ params: path })
    const user = summary.data.user
    const id = yield* ids.ids.allocate("user", user.nanoid)
    return ok({
      id: idNumber(id),
      nanoid: user.nanoid,
      firstname: user.first_name,
      middlename: user.middle_name,
      lastname: user.last_name,
      email: user.email,
      svcId: Option.getOrElse(yield* ids.ids.v1Of("svcid", user.nanoid), () => ""),
      wallet: user.blockchain_address,
      relationship_type: summary.data.relationship_type,
      pay_schedules: summary.data.pay_schedules
    })
  })

const removeMember: Handler = ({ client, params, resolver }) =>
  Effect.gen(function* () {
    const path = yield* memberPath(resolver, params.team_nanoid ?? "", params.user_nanoid ?? "")
    const removed = yield* client.teams.removeMember({ params: path })
    return ok({ id: idNumber(params.user_nanoid ?? ""), removed: removed.data.removed })
  })

/** v1 answered every payment at once; v2 pages them (an unpaged query answers the newest 1000). */
const payments: Handler = ({ client, query, resolver }) =>
  Effect.gen(function* () {
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
  })

/** A payment call: typed data to sign, or, with `request` and `signature`, its execution. */
const pay: Handler = ({ client, body, resolver, route }) =>
  Effect.gen(function* () {
    const translated = yield* paymentTranslation(resolver, body, { intents: route.includes("intents") })
    if (translated.execute !== undefined) {
      const executed = yield* client.payments.execute({ payload: translated.execute })
      return ok({ transaction: executed.data.transaction, payments: executed.data.payments })
    }
    const issued = yield* client.payments.create({ payload: translated.create })
    return ok(signable(issued.data))
  })

const balance: Handler = ({ client, params, resolver }) =>
  Effect.gen(function* () {
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
  })

const invites: Handler = ({ client, query, resolver }) =>
  Effect.map(
    Effect.flatMap(invitesQuery(resolver, query), (v2Query) => client.invites.list({ query: v2Query })),
    (answer) => ok(answer.data)
  )

const invite: Handler = ({ client, body, resolver, route }) =>
  Effect.gen(function* () {
    const creation = yield* invitesCreation(resolver, body, route.endsWith("warmed"))
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
  })

/** Every v1 route's handler, by `METHOD /v1/path` as `V1Routes.ts` writes it. */
export const v1Handlers: Readonly<Record<string, Handler>> = {
  "GET /v1/api/siwe": siweMessage,
  "GET /v1/auth/api/siwe": siweMessage,
  "POST /v1/api/siwe": siweSignIn,
  "POST /v1/auth/api/siwe": siweSignIn,
  "GET /v1/teams": teams,
  "GET /v1/teams/{teamId}/talent": talent,
  "GET /v1/teams/{teamId}/talent/{talentId}": member,
  "DELETE /v1/teams/{teamId}/talent/{talentId}": removeMember,
  "POST /v1/payments/pay": pay,
  "PUT /v1/payments/pay": pay,
  "POST /v1/payments/batch-pay": pay,
  "PUT /v1/payments/batch-pay": pay,
  "POST /v1/payments/batch-pay/intents": pay,
  "POST /v1/payments/batch-pay-intents": pay,
  "GET /v1/payments": payments,
  "GET /v1/svcid/{svc_id}/balance": balance,
  "GET /v1/riseid/{rise_id}/balance": balance,
  "GET /v1/invites": invites,
  "POST /v1/invites": invite,
  "POST /v1/invites/warmed": invite
}
