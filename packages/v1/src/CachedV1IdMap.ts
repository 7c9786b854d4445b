/**
 * The id map with a bounded in-process cache in front. A mapping, once stored, never changes or goes away (`record`
 * refuses contradictions and nothing deletes), so a cached mapping is never stale, in this process or another: the
 * proxy stays stateless while a v1 client's repeated calls cost no storage round trip.
 *
 * An id the store does not map is remembered as absent for `absentMillis` (2 s): a team's users whose svcid is not
 * known (no account yet) would otherwise be looked up on every talent list. A mapping recorded through this cache ends
 * that at once; one recorded by another process is seen within `absentMillis`.
 */
import { normalizeV1Id, type V1IdKind, V1IdMap } from "@svc/domain/migration"
import { Clock, Effect, Option } from "effect"

/** Both directions of the kept mappings, and what the store did not map, bounded by `capacity`. */
const makeCache = (capacity: number, absentMillis: number) => {
  const byV1 = new Map<string, string>()
  const byNanoid = new Map<string, string>()
  /** `v1:<kind>:<v1>` and `nanoid:<kind>:<nanoid>` the store did not map, until when. */
  const absent = new Map<string, number>()
  /** Forgets that `v1` and `nanoid` were absent (a mapping of them was just recorded). */
  const present = (kind: V1IdKind, v1: string, nanoid: string) => {
    absent.delete(`v1:${kind}:${v1}`)
    absent.delete(`nanoid:${kind}:${nanoid}`)
  }
  return {
    byV1,
    byNanoid,
    isAbsent: (key: string, now: number) => {
      const until = absent.get(key)
      if (until === undefined) return false
      if (until > now) return true
      absent.delete(key)
      return false
    },
    markAbsent: (key: string, now: number) => {
      if (absent.size >= capacity) absent.delete(absent.keys().next().value as string)
      absent.set(key, now + absentMillis)
    },
    present,
    keep: (kind: V1IdKind, v1: string, nanoid: string) => {
      present(kind, v1, nanoid)
      if (byV1.size >= capacity) {
        const oldest = byV1.keys().next().value as string
        byNanoid.delete(`${oldest.slice(0, oldest.indexOf(":"))}:${byV1.get(oldest)}`)
        byV1.delete(oldest)
      }
      byV1.set(`${kind}:${v1}`, nanoid)
      byNanoid.set(`${kind}:${nanoid}`, v1)
    }
  }
}

type Cache = ReturnType<typeof makeCache>

/**
 * `keys` of one side (`v1` ids or nanoids) looked up in the cache first, the rest loaded from the store at once; what
 * the store does not map is remembered absent, what it maps is kept.
 */
const lookUp = <A extends string>(
  cache: Cache,
  kind: V1IdKind,
  side: "v1" | "nanoid",
  keys: ReadonlyArray<A>,
  load: (missing: ReadonlyArray<A>) => Effect.Effect<ReadonlyMap<string, string>>
) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const kept = side === "v1" ? cache.byV1 : cache.byNanoid
    const found = new Map<string, string>()
    const missing: Array<A> = []
    for (const key of keys) {
      const hit = kept.get(`${kind}:${key}`)
      if (hit !== undefined) found.set(key, hit)
      else if (!cache.isAbsent(`${side}:${kind}:${key}`, now)) missing.push(key)
    }
    if (missing.length === 0) return found as ReadonlyMap<string, string>
    const loaded = yield* load(missing)
    for (const key of missing) {
      const value = loaded.get(key)
      if (value === undefined) cache.markAbsent(`${side}:${kind}:${key}`, now)
      else {
        found.set(key, value)
        if (side === "v1") cache.keep(kind, key, value)
        else cache.keep(kind, value, key)
      }
    }
    return found as ReadonlyMap<string, string>
  })

/** `ids` with the mappings it answers kept, up to `capacity` of them (the oldest go first). */
export const cachedIdMap = (ids: V1IdMap["Service"], capacity = 100_000, absentMillis = 2_000): V1IdMap["Service"] => {
  const cache = makeCache(capacity, absentMillis)
  const one = (kind: V1IdKind, side: "v1" | "nanoid", key: string) =>
    Effect.map(
      lookUp(cache, kind, side, [key], (missing) =>
        Effect.map(
          side === "v1" ? ids.nanoidOf(kind, missing[0] as string) : ids.v1Of(kind, missing[0] as string),
          (found) => (Option.isSome(found) ? new Map([[key, found.value]]) : new Map<string, string>())
        )
      ),
      (found) => Option.fromNullishOr(found.get(key))
    )
  return V1IdMap.of({
    ...ids,
    allocate: (kind, nanoid) => {
      const hit = cache.byNanoid.get(`${kind}:${nanoid}`)
      return hit !== undefined
        ? Effect.succeed(hit)
        : Effect.tap(ids.allocate(kind, nanoid), (v1) => Effect.sync(() => cache.keep(kind, v1, nanoid)))
    },
    allocateMany: (kind, nanoids) =>
      Effect.gen(function* () {
        const hits = nanoids.map((nanoid) => cache.byNanoid.get(`${kind}:${nanoid}`))
        if (hits.every((v1) => v1 !== undefined)) return hits as ReadonlyArray<string>
        const v1s = yield* ids.allocateMany(kind, nanoids)
        for (const [i, v1] of v1s.entries()) cache.keep(kind, v1, nanoids[i] as string)
        return v1s
      }),
    nanoidOf: (kind, v1) => {
      const hit = cache.byV1.get(`${kind}:${v1}`)
      return hit !== undefined ? Effect.succeed(Option.some(hit)) : one(kind, "v1", v1)
    },
    v1Of: (kind, nanoid) => {
      const hit = cache.byNanoid.get(`${kind}:${nanoid}`)
      return hit !== undefined ? Effect.succeed(Option.some(hit)) : one(kind, "nanoid", nanoid)
    },
    record: (mappings) =>
      Effect.tap(ids.record(mappings), () =>
        Effect.sync(() => {
          for (const { kind, v1, nanoid } of mappings) cache.present(kind, normalizeV1Id(kind, v1), nanoid)
        })
      ),
    nanoidsOf: (kind, v1s) => lookUp(cache, kind, "v1", v1s, (missing) => ids.nanoidsOf(kind, missing)),
    v1IdsOf: (kind, nanoids) => lookUp(cache, kind, "nanoid", nanoids, (missing) => ids.v1IdsOf(kind, missing))
  })
}
