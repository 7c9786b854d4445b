/**
 * The map between v1 ids and v2 nanoids (SPEC §9.4), so v1 clients keep their ids while the service speaks nanoids:
 * numeric team and member ids (`team`, `user`) and svcid addresses (`svcid`, a team's, user's or company's account).
 * A team or user a v1 client sees for the first time gets the next free number of its kind.
 */
import { Context, type Effect, type Option, Schema } from "effect"
import { withArticle } from "../Text.ts"

/** What a v1 id names: a team or a member by number, or anything with an account by its svcid address. */
export const V1IdKind = Schema.Literals(["team", "user", "svcid"])
export type V1IdKind = typeof V1IdKind.Type

/** The kinds whose v1 ids are numbers, allocated on first sight. */
export type NumberedV1IdKind = Exclude<V1IdKind, "svcid">

const nanoidOfKind: Record<V1IdKind, RegExp> = {
  team: /^te-[0-9A-Za-z_-]{12}$/,
  user: /^us-[0-9A-Za-z_-]{12}$/,
  svcid: /^(te|us|co)-[0-9A-Za-z_-]{1,61}$/
}

/** The v1 id of each kind: a number for teams and members, an address (lower case) for svcids. */
const v1OfKind: Record<V1IdKind, RegExp> = {
  team: /^[0-9]{1,15}$/,
  user: /^[0-9]{1,15}$/,
  svcid: /^0x[0-9a-f]{40}$/
}

/** Why `mapping` is not a well-formed mapping of its kind, or `undefined` when it is (cheap: imports call it per row). */
export const v1IdMappingIssue = (mapping: {
  readonly kind: string
  readonly v1: string
  readonly nanoid: string
}): string | undefined => {
  const kind = mapping.kind as V1IdKind
  if (!(kind in v1OfKind)) return `Unknown kind "${mapping.kind}": expected team, user or svcid`
  if (!v1OfKind[kind].test(mapping.v1))
    return `A ${kind} v1 id must be ${kind === "svcid" ? "an address (0x + 40 hex)" : "a number"}, got "${mapping.v1}"`
  if (!nanoidOfKind[kind].test(mapping.nanoid))
    return `"${mapping.nanoid}" is not a nanoid ${withArticle(kind)} v1 id can map to`
  return undefined
}

/** One v1 id and the nanoid it stands for. */
export const V1IdMapping = Schema.Struct({ kind: V1IdKind, v1: Schema.String, nanoid: Schema.String }).pipe(
  Schema.check(Schema.makeFilter((m) => v1IdMappingIssue(m) ?? true))
)
export type V1IdMapping = typeof V1IdMapping.Type

/** A v1 id as clients write it, normalised: svcid addresses in lower case, numbers without leading zeros. */
export const normalizeV1Id = (kind: V1IdKind, v1: string | number): string => {
  const text = String(v1).trim()
  if (kind === "svcid") return text.toLowerCase()
  // Only leading zeros need the round trip through a number (and a big one, so no digit is lost).
  return text.length > 1 && text.startsWith("0") && /^[0-9]+$/.test(text) ? String(BigInt(text)) : text
}

/** A mapping contradicts a stored one: its v1 id or its nanoid is already mapped otherwise. */
export class V1IdConflict extends Schema.TaggedError<V1IdConflict>()("V1IdConflict", {
  mapping: V1IdMapping,
  stored: V1IdMapping
}) {
  override get message() {
    const { kind, v1, nanoid } = this.mapping
    return `${kind} ${v1} -> ${nanoid} contradicts the stored ${this.stored.kind} ${this.stored.v1} -> ${this.stored.nanoid}`
  }
}

/** A page of the map, and the cursor of the next one (absent after the last). */
export interface V1IdPage {
  readonly mappings: ReadonlyArray<V1IdMapping>
  readonly next: string | undefined
}

/**
 * The v1 id map. Implementations keep (kind, v1) and (kind, nanoid) each unique, and make `allocate` atomic across
 * processes and replicas: concurrent first sights of one nanoid agree on one number, and no number is given twice.
 */
export class V1IdMap extends Context.Service<
  V1IdMap,
  {
    /** The v1 id of `nanoid`, allocating the next number of its kind (one past the largest stored) on first sight. */
    readonly allocate: (kind: NumberedV1IdKind, nanoid: string) => Effect.Effect<string>
    /** The nanoid a v1 id stands for. */
    readonly nanoidOf: (kind: V1IdKind, v1: string) => Effect.Effect<Option.Option<string>>
    /** The v1 id of a nanoid, without allocating. */
    readonly v1Of: (kind: V1IdKind, nanoid: string) => Effect.Effect<Option.Option<string>>
    /** `allocate` for many nanoids in one step (a list of team users): their v1 ids, in order. */
    readonly allocateMany: (
      kind: NumberedV1IdKind,
      nanoids: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<string>>
    /** `nanoidOf` for many v1 ids in one step: v1 id -> nanoid for those mapped. */
    readonly nanoidsOf: (kind: V1IdKind, v1s: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, string>>
    /** `v1Of` for many nanoids in one step: nanoid -> v1 id for those mapped. */
    readonly v1IdsOf: (kind: V1IdKind, nanoids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, string>>
    /**
     * Stores `mappings` (one transaction where the store has them). Mappings stored already are skipped, so imports
     * can be run again; one that contradicts a stored mapping fails the call.
     */
    readonly record: (mappings: ReadonlyArray<V1IdMapping>) => Effect.Effect<void, V1IdConflict>
    /** Up to `limit` mappings after `cursor` (from the start without one): every mapping once over all pages. */
    readonly page: (cursor: string | undefined, limit: number) => Effect.Effect<V1IdPage>
  }
>()("@svc/domain/migration/V1IdMap") {}
