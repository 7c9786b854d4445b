/**
 * The ids v1 knows things by (numbers, svcids) for a v1 call: read from the cached id map, numbers allocated on first
 * sight, and svcids (account addresses) learnt from what v2 shows when the map does not know them yet.
 */
import type { ApiClient } from "@svc/contract"
import type { TeamId } from "@svc/domain/Ids"
import type { V1IdMap } from "@svc/domain/migration"
import { Effect, Option } from "effect"
import { cachedIdMap } from "./CachedV1IdMap.ts"
import { mapResolver, type Untranslatable, type V1IdResolver } from "./V1Translation.ts"

/** What v1 shows of a team user: the fields of v2's `TeamUser` it reads. */
export interface TalentSource {
  readonly nanoid: string
  readonly first_name: string
  readonly middle_name: string
  readonly last_name: string
  readonly email: string
  readonly role: string
  readonly svcid: string
  readonly svc_account: string
}

const isAddress = (v: unknown): v is string => typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v)

/** A v1 id as v1 wrote it: a number when it is one, else the string. */
export const idNumber = (v1: string) => (/^[0-9]{1,15}$/.test(v1) ? Number(v1) : v1)

/** A team user's account address, the svcid v1 knew it by: its svcid when that is an address, else its account. */
const addressOf = (user: TalentSource): string | undefined =>
  isAddress(user.svcid)
    ? user.svcid.toLowerCase()
    : isAddress(user.svc_account)
      ? user.svc_account.toLowerCase()
      : undefined

/**
 * Resolution with v2 as a fallback, for the caller `client` acts as: svcids the map (`fromMap`) does not know yet are
 * learnt from the caller's teams (`teamSvcid`) and the team's users (`talentOf`).
 */
const resolverWith =
  (
    fromMap: V1IdResolver,
    teamSvcid: (client: ApiClient, team: string) => Effect.Effect<string>,
    talentOf: (users: ReadonlyArray<TalentSource>) => Effect.Effect<unknown>
  ) =>
  (client: ApiClient): V1IdResolver => {
    /** Learns the svcids of the caller's teams from v2, then resolves `v1` with the map again. */
    const viaTeams = <A>(resolve: (v1: string) => Effect.Effect<A, Untranslatable>, v1: string) =>
      Effect.gen(function* () {
        const mine = yield* client.teams.listMine().pipe(Effect.orElseSucceed(() => ({ data: { teams: [] } })))
        for (const team of mine.data.teams) yield* teamSvcid(client, team.nanoid)
        return yield* resolve(v1)
      })
    /** Learns the svcids of the team's users from v2, then resolves `v1` with the map again. */
    const viaUsers = (v1: string, team: TeamId) =>
      Effect.gen(function* () {
        const users = yield* client.teams
          .users({ params: { team_nanoid: team }, query: {} })
          .pipe(Effect.orElseSucceed(() => ({ data: { users: [] } })))
        yield* talentOf(users.data.users)
        return yield* fromMap.user(v1)
      })
    return {
      team: (v1) =>
        fromMap
          .team(v1)
          .pipe(
            Effect.catchTag("Untranslatable", (refused) =>
              isAddress(v1) ? viaTeams(fromMap.team, v1) : Effect.fail(refused)
            )
          ),
      user: (v1, team) =>
        fromMap
          .user(v1)
          .pipe(
            Effect.catchTag("Untranslatable", (refused) =>
              isAddress(v1) && team !== undefined ? viaUsers(v1, team) : Effect.fail(refused)
            )
          ),
      account: (v1) =>
        fromMap
          .account(v1)
          .pipe(
            Effect.catchTag("Untranslatable", (refused) =>
              isAddress(v1) ? viaTeams(fromMap.account, v1) : Effect.fail(refused)
            )
          )
    }
  }

/** The v1 ids over the id map `stored` (cached in this process). */
export const makeV1Ids = (stored: V1IdMap["Service"]) => {
  const ids = cachedIdMap(stored)

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

  /** Records the svcids of `users` the map does not know yet (all at once; one by one if that conflicts). */
  const learnSvcids = (users: ReadonlyArray<TalentSource>, known: ReadonlyMap<string, string>) => {
    const learnt = users.flatMap((user) => {
      const address = addressOf(user)
      return known.has(user.nanoid) || address === undefined ? [] : [{ address, nanoid: user.nanoid }]
    })
    return learnt.length === 0
      ? Effect.void
      : ids
          .record(learnt.map(({ address, nanoid }) => ({ kind: "svcid" as const, v1: address, nanoid })))
          .pipe(Effect.catch(() => Effect.forEach(learnt, ({ address, nanoid }) => learnSvcid(address, nanoid))))
  }

  /** The v1 form of team users (one step for the numbers, one for the svcids); svcids are learnt on the way. */
  const talentOf = (users: ReadonlyArray<TalentSource>) =>
    Effect.gen(function* () {
      const nanoids = users.map((user) => user.nanoid)
      const numbers = yield* ids.allocateMany("user", nanoids)
      const svcids = yield* ids.v1IdsOf("svcid", nanoids)
      yield* learnSvcids(users, svcids)
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

  return { ids, teamSvcid, talentOf, resolverFor: resolverWith(mapResolver(ids), teamSvcid, talentOf) }
}

/** The v1 ids of one handler. */
export type V1Ids = ReturnType<typeof makeV1Ids>
