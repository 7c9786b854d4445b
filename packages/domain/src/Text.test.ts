import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { InviteId, UserId } from "./Ids.ts"
import { PaymentRecipientRequest } from "./payment/PaymentRequests.ts"
import { characterCount, ImageUrl, PlainText, withArticle } from "./Text.ts"
import { TeamName } from "./team/Team.ts"
import { TeamSettings } from "./team/TeamSettings.ts"
import { CreateWebhookRequest } from "./webhook/WebhookRequests.ts"
import { addressRefusal } from "./webhook/WebhookUrlPolicy.ts"

const name = Schema.is(PlainText({ min: 2, max: 50, what: "a team name" }))
const description = Schema.is(PlainText({ max: 500, what: "a description", multiline: true }))

describe("the text policy (docs/decisions/0059)", () => {
  it("refuses each class it lists, in names and in descriptions", () => {
    const refused: Array<[string, string]> = [
      ["NUL", "Team\u0000A"],
      ["a C1 control", "Team\u0085A"],
      ["DEL", "Team\u007fA"],
      ["right-to-left override", "Team\u202eA"],
      ["left-to-right isolate", "Team\u2066A"],
      ["Arabic letter mark", "Team\u061cA"],
      ["zero-width space", "Team\u200bA"],
      ["zero-width non-joiner", "Team\u200cA"],
      ["word joiner", "Team\u2060A"],
      ["byte-order mark", "\ufeffTeam"],
      ["Mongolian vowel separator", "Team\u180eA"],
      ["line separator", "Team\u2028A"],
      ["paragraph separator", "Team\u2029A"],
      ["a tag character", "Team\u{e0041}A"],
      ["a lone high surrogate", "Team\ud800A"],
      ["a lone low surrogate", "Team\udc00A"],
      ["a noncharacter", "Team\uffffA"]
    ]
    for (const [what, text] of refused) {
      assert.isFalse(name(text), `name with ${what}`)
      assert.isFalse(description(text), `description with ${what}`)
    }
  })

  it("names must be more than whitespace; descriptions may break lines; every script and emoji pass", () => {
    for (const blank of ["  ", "\u3000\u3000", "\u00a0\u00a0"]) assert.isFalse(name(blank), JSON.stringify(blank))
    assert.isFalse(name("Team\nA"))
    assert.isFalse(name("Team\tA"))
    assert.isTrue(description("Line one\nline two\ttabbed\r\n"))
    assert.isFalse(description("Form\u000cfeed"))
    assert.isTrue(description(""))
    for (const good of [
      "Équipe Ünïcödé",
      "会计团队",
      "فريق",
      "Команда",
      "Team 🚀",
      "Family 👨‍👩‍👧",
      "Flag 🇺🇦",
      "A&B (2026)"
    ]) {
      assert.isTrue(name(good), good)
    }
  })

  it("image URLs are https, without a user name or password", () => {
    const image = Schema.is(ImageUrl)
    assert.isTrue(image("https://cdn.example/a.png"))
    assert.isTrue(image(""))
    assert.isFalse(image("https://user:pw@cdn.example/a.png"))
    assert.isFalse(image("https://user@cdn.example/a.png"))
    assert.isFalse(image("http://cdn.example/a.png"))
    assert.isFalse(image("https://cdn.example/\u202egnp.a"))
  })

  it("webhook endpoint names and descriptions follow it (they were free before)", () => {
    const endpoint = (name: string, description: string) =>
      Schema.decodeUnknownExit(CreateWebhookRequest)({
        team_nanoid: "te-000000000001",
        url: "https://hooks.example/x",
        events: ["payment.sent"],
        name,
        description
      })._tag
    assert.strictEqual(endpoint("Payments", "Line one\nline two"), "Success")
    assert.strictEqual(endpoint("Pay\u0000ments", ""), "Failure")
    assert.strictEqual(endpoint("Payments", "evil \u202e txt.exe"), "Failure")
    assert.strictEqual(endpoint("   ", ""), "Failure")
  })

  it("counts lengths in characters (code points), not UTF-16 units, in the check and in the JSON Schema", () => {
    const emoji = "\u{1f680}"
    const accent = "e\u0301"
    assert.strictEqual(characterCount(emoji.repeat(9)), 9)
    assert.strictEqual(characterCount(accent), 2)
    const prefix = (invoice_prefix: string) =>
      Schema.is(TeamSettings)({
        default_pay_now: true,
        invoice_prefix,
        payment_reminder_days: 3,
        block_duplicates: false
      })
    assert.isTrue(prefix(emoji.repeat(9)), "9 emoji (18 UTF-16 units)")
    assert.isTrue(prefix(emoji.repeat(16)))
    assert.isFalse(prefix(emoji.repeat(17)))
    assert.isTrue(prefix(accent.repeat(8)), "8 letters with a combining mark: 16 code points")
    assert.isFalse(prefix(`${accent.repeat(8)}x`))
    const teamName = Schema.is(TeamName)
    assert.isTrue(teamName(emoji.repeat(50)))
    assert.isFalse(teamName(emoji.repeat(51)))
    assert.isFalse(teamName(emoji), "one character is under the minimum of 2")
    assert.isTrue(teamName(emoji.repeat(2)))
    // A 1,000-character description holding 10 emoji.
    const description = `${emoji.repeat(10)}${"d".repeat(990)}`
    const payments = (invoice_description: string) =>
      Schema.is(PaymentRecipientRequest)({
        to: "us-abcdefghijkl",
        amount_cents: 100,
        currency_symbol: "USD",
        invoice_description
      })
    assert.isTrue(payments(description))
    assert.isFalse(payments(`${description}d`))
    const schema = Schema.toJsonSchemaDocument(TeamName).schema as { minLength?: number; maxLength?: number }
    assert.deepStrictEqual([schema.minLength, schema.maxLength], [2, 50])
  })

  it("messages take the article their word needs (issue 21: 'a unspecified address', 'a invite id')", () => {
    assert.deepStrictEqual(
      ["invite", "unspecified", "event", "user", "loopback", "link-local", "invalid"].map(withArticle),
      ["an invite", "an unspecified", "an event", "a user", "a loopback", "a link-local", "an invalid"]
    )
    const messageOf = (schema: Schema.Decoder<unknown>, value: unknown) => {
      const result = Schema.decodeUnknownExit(schema)(value)
      return result._tag === "Failure" ? String(result.cause) : ""
    }
    assert.include(messageOf(InviteId, "in-x"), "Expected an invite id")
    assert.include(messageOf(UserId, "us-x"), "Expected a user id")
    assert.strictEqual(
      addressRefusal("0.0.0.0", { requireHttps: false, allowPrivate: false }),
      "The webhook URL must never point to an unspecified address"
    )
  })
})
