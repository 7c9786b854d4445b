/**
 * Nanoid identifiers: a kind prefix, then nanoid characters (SPEC §1).
 *
 * The spec's kinds (`te-`, `us-`, `wh-`, `in-`) are exactly 15 characters; `co-` and `pa-` are only pinned by prefix,
 * and so are our own kinds. We generate every kind at 15 characters (prefix + 12), which keeps 72 bits of randomness.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { customAlphabet } from "nanoid"
import { withArticle } from "./Text.ts"

/** The nanoid alphabet (URL-safe). */
export const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-"

/** Every id kind: its prefix and whether the spec pins its length to 15 characters. */
export const IdKinds = {
  team: { prefix: "te-", exact: true },
  user: { prefix: "us-", exact: true },
  webhook: { prefix: "wh-", exact: true },
  invite: { prefix: "in-", exact: true },
  company: { prefix: "co-", exact: false },
  payment: { prefix: "pa-", exact: false },
  paymentGroup: { prefix: "pg-", exact: false },
  invoice: { prefix: "iv-", exact: false },
  membership: { prefix: "re-", exact: false },
  event: { prefix: "ev-", exact: false },
  delivery: { prefix: "dl-", exact: false },
  deposit: { prefix: "dp-", exact: false },
  payoutChange: { prefix: "wa-", exact: false }
} as const
export type IdKind = keyof typeof IdKinds

/** The length of every id we generate, and of every spec kind with a fixed length. */
export const idLength = 15
const bodyLength = idLength - 3

const lengths = (minLength: number, maxLength: number) => ({ minLength, maxLength })

const idSchema = (kind: IdKind) => {
  const { prefix, exact } = IdKinds[kind]
  const body = exact ? `{${bodyLength}}` : "{1,61}"
  const rule = exact
    ? `"${prefix}" followed by ${bodyLength} characters of [0-9A-Za-z_-] (${idLength} in all)`
    : `"${prefix}" followed by 1 to 61 characters of [0-9A-Za-z_-]`
  const annotations = {
    expected: `${withArticle(kind)} id: ${rule}`,
    message: `Expected ${withArticle(kind)} id: ${rule}`
  }
  return Schema.String.pipe(
    Schema.check(
      // The length first, so an over-long value is refused before the pattern reads it; OpenAPI shows both.
      // The characters are ASCII, so the length in JSON Schema's code points is exact (Effect halves the minimum).
      exact
        ? Schema.isBetweenLength(idLength, idLength, {
            ...annotations,
            toJsonSchema: () => lengths(idLength, idLength)
          })
        : Schema.isBetweenLength(prefix.length + 1, prefix.length + 61, {
            ...annotations,
            toJsonSchema: () => lengths(prefix.length + 1, prefix.length + 61)
          }),
      Schema.isPattern(new RegExp(`^${prefix}[0-9A-Za-z_-]${body}$`, "u"), annotations)
    )
  )
}

/** A team id, `te-` + 12 characters. */
export const TeamId = idSchema("team").pipe(Schema.brand("TeamId"))
export type TeamId = typeof TeamId.Type
/** A user id, `us-` + 12 characters. */
export const UserId = idSchema("user").pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type
/** A webhook endpoint id, `wh-` + 12 characters. */
export const WebhookId = idSchema("webhook").pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type
/** An invite id, `in-` + 12 characters. */
export const InviteId = idSchema("invite").pipe(Schema.brand("InviteId"))
export type InviteId = typeof InviteId.Type
/** A company id, `co-` + characters. */
export const CompanyId = idSchema("company").pipe(Schema.brand("CompanyId"))
export type CompanyId = typeof CompanyId.Type
/** A payment id, `pa-` + characters. */
export const PaymentId = idSchema("payment").pipe(Schema.brand("PaymentId"))
export type PaymentId = typeof PaymentId.Type
/** A payment group (one signed batch) id, `pg-` + characters. */
export const PaymentGroupId = idSchema("paymentGroup").pipe(Schema.brand("PaymentGroupId"))
export type PaymentGroupId = typeof PaymentGroupId.Type
/** An invoice id, `iv-` + characters. */
export const InvoiceId = idSchema("invoice").pipe(Schema.brand("InvoiceId"))
export type InvoiceId = typeof InvoiceId.Type
/** A team membership (relationship) id, `re-` + characters. */
export const MembershipId = idSchema("membership").pipe(Schema.brand("MembershipId"))
export type MembershipId = typeof MembershipId.Type
/** An event id, `ev-` + characters. */
export const EventId = idSchema("event").pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type
/** A webhook delivery id, `dl-` + characters. */
export const DeliveryId = idSchema("delivery").pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type
/** A deposit id, `dp-` + characters. */
export const DepositId = idSchema("deposit").pipe(Schema.brand("DepositId"))
export type DepositId = typeof DepositId.Type

/** A change of a user's payout address (`wa-`: the API's "withdraw account", decision 0108). */
export const PayoutChangeId = idSchema("payoutChange").pipe(Schema.brand("PayoutChangeId"))
export type PayoutChangeId = typeof PayoutChangeId.Type

/** The branded type of each kind. */
export interface IdTypes {
  readonly team: TeamId
  readonly user: UserId
  readonly webhook: WebhookId
  readonly invite: InviteId
  readonly company: CompanyId
  readonly payment: PaymentId
  readonly paymentGroup: PaymentGroupId
  readonly invoice: InvoiceId
  readonly membership: MembershipId
  readonly event: EventId
  readonly delivery: DeliveryId
  readonly deposit: DepositId
  readonly payoutChange: PayoutChangeId
}

/** Makes new ids. Implementations must return ids that parse with the kind's schema and never repeat. */
export class IdGenerator extends Context.Service<
  IdGenerator,
  { readonly make: <K extends IdKind>(kind: K) => Effect.Effect<IdTypes[K]> }
>()("@svc/domain/Ids/IdGenerator") {
  /** Random ids from nanoid's secure generator. */
  static readonly layer = Layer.sync(IdGenerator, () => {
    const body = customAlphabet(alphabet, bodyLength)
    return IdGenerator.of({
      make: (kind) => Effect.sync(() => `${IdKinds[kind].prefix}${body()}` as IdTypes[typeof kind])
    })
  })

  /** Deterministic ids for tests: a per-kind counter, `te-000000000001`, `te-000000000002`, ... */
  static readonly layerTest = Layer.sync(IdGenerator, () => {
    const counters = new Map<IdKind, number>()
    return IdGenerator.of({
      make: (kind) =>
        Effect.sync(() => {
          const next = (counters.get(kind) ?? 0) + 1
          counters.set(kind, next)
          return `${IdKinds[kind].prefix}${String(next).padStart(bodyLength, "0")}` as IdTypes[typeof kind]
        })
    })
  })
}
