/**
 * The id map with a bounded in-process cache in front. A mapping, once stored, never changes or goes away (`record`
 * refuses contradictions and nothing deletes), so a cached mapping is never stale, in this process or another: the
 * proxy stays stateless while a v1 client's repeated calls cost no storage round trip.
 */
import { type V1IdKind, V1IdMap } from "@svc/domain/migration"
import { Effect, Option } from "effect"

/** `ids` with the mappings it answers kept, up to `capacity` of them (the oldest go first). */
export const cachedIdMap = (ids: V1IdMap["Service"], capacity = 100_000): V1IdMap["Service"] => {
  const byV1 = new Map<string, string>()
  const byNanoid = new Map<string, string>()
  const keep = (kind: V1IdKind, v1: string, nanoid: string) => {
    if (byV1.size >= capacity) {
      const oldest = byV1.keys().next().value as string
      byNanoid.delete(`${oldest.slice(0, oldest.indexOf(":"))}:${byV1.get(oldest)}`)
      byV1.delete(oldest)
    }
    byV1.set(`${kind}:${v1}`, nanoid)
    byNanoid.set(`${kind}:${nanoid}`, v1)
  }
  const many = <A extends string>(
    kind: V1IdKind,
    keys: ReadonlyArray<A>,
    cache: Map<string, string>,
    load: (missing: ReadonlyArray<A>) => Effect.Effect<ReadonlyMap<string, string>>,
    store: (key: string, value: string) => void
  ) =>
    Effect.gen(function* () {
      const found = new Map<string, string>()
      const missing: Array<A> = []
      for (const key of keys) {
        const hit = cache.get(`${kind}:${key}`)
        if (hit === undefined) missing.push(key)
        else found.set(key, hit)
      }
      if (missing.length > 0)
        for (const [key, value] of yield* load(missing)) {
          found.set(key, value)
          store(key, value)
        }
      return found as ReadonlyMap<string, string>
    })
  return V1IdMap.of({
    ...ids,
    allocate: (kind, nanoid) => {
      const hit = byNanoid.get(`${kind}:${nanoid}`)
      return hit !== undefined
        ? Effect.succeed(hit)
        : Effect.tap(ids.allocate(kind, nanoid), (v1) => Effect.sync(() => keep(kind, v1, nanoid)))
    },
    allocateMany: (kind, nanoids) =>
      Effect.gen(function* () {
        const hits = nanoids.map((nanoid) => byNanoid.get(`${kind}:${nanoid}`))
        if (hits.every((v1) => v1 !== undefined)) return hits as ReadonlyArray<string>
        const v1s = yield* ids.allocateMany(kind, nanoids)
        for (const [i, v1] of v1s.entries()) keep(kind, v1, nanoids[i] as string)
        return v1s
      }),
    nanoidOf: (kind, v1) => {
      const hit = byV1.get(`${kind}:${v1}`)
      return hit !== undefined
        ? Effect.succeed(Option.some(hit))
        : Effect.tap(ids.nanoidOf(kind, v1), (found) =>
            Effect.sync(() => Option.map(found, (nanoid) => keep(kind, v1, nanoid)))
          )
    },
    v1Of: (kind, nanoid) => {
      const hit = byNanoid.get(`${kind}:${nanoid}`)
      return hit !== undefined
        ? Effect.succeed(Option.some(hit))
        : Effect.tap(ids.v1Of(kind, nanoid), (found) =>
            Effect.sync(() => Option.map(found, (v1) => keep(kind, v1, nanoid)))
          )
    },
    nanoidsOf: (kind, v1s) =>
      many(
        kind,
        v1s,
        byV1,
        (missing) => ids.nanoidsOf(kind, missing),
        (v1, nanoid) => keep(kind, v1, nanoid)
      ),
    v1IdsOf: (kind, nanoids) =>
      many(
        kind,
        nanoids,
        byNanoid,
        (missing) => ids.v1IdsOf(kind, missing),
        (nanoid, v1) => keep(kind, v1, nanoid)
      )
  })
}
