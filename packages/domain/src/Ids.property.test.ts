import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  alphabet,
  CompanyId,
  IdGenerator,
  type IdKind,
  IdKinds,
  InviteId,
  PaymentId,
  TeamId,
  UserId,
  WebhookId
} from "./Ids.ts"

const schemas = {
  team: TeamId,
  user: UserId,
  webhook: WebhookId,
  invite: InviteId,
  company: CompanyId,
  payment: PaymentId
}
const Body = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: alphabet.length - 1 })))
const bodyOf = (indexes: ReadonlyArray<number>) => indexes.map((i) => alphabet[i]).join("")
const Kind = Schema.Literals(Object.keys(schemas) as unknown as readonly [keyof typeof schemas])

describe("Ids (properties)", () => {
  it.prop("any prefix + 12 alphabet characters parses as its kind and round-trips", [Kind, Body], ([kind, indexes]) => {
    const id = `${IdKinds[kind].prefix}${bodyOf([...indexes, ...Array(12).fill(0)].slice(0, 12))}`
    const decoded = Schema.decodeUnknownSync(schemas[kind])(id)
    assert.strictEqual(Schema.encodeSync(schemas[kind])(decoded), id)
    for (const [other, schema] of Object.entries(schemas)) {
      if (other !== kind) assert.isTrue(Schema.decodeUnknownExit(schema)(id)._tag === "Failure", `${id} as ${other}`)
    }
  })

  it.prop("the 15-character kinds refuse every other length", [Body], ([indexes]) => {
    const body = bodyOf(indexes)
    for (const kind of ["team", "user", "webhook", "invite"] as const) {
      const parsed = Schema.decodeUnknownExit(schemas[kind])(`${IdKinds[kind].prefix}${body}`)
      assert.strictEqual(parsed._tag === "Success", body.length === 12, `${kind} with ${body.length} characters`)
    }
  })

  it.effect.prop(
    "generated ids of every kind parse",
    [Schema.Literals(Object.keys(IdKinds) as unknown as readonly [IdKind])],
    ([kind]) =>
      Effect.gen(function* () {
        const id = yield* (yield* IdGenerator).make(kind)
        assert.isTrue(id.startsWith(IdKinds[kind].prefix))
        if (kind in schemas) Schema.decodeUnknownSync(schemas[kind as keyof typeof schemas])(id)
      }).pipe(Effect.provide(IdGenerator.layer))
  )
})
