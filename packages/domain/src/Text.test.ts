import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { ImageUrl, PlainText } from "./Text.ts"
import { CreateWebhookRequest } from "./webhook/WebhookRequests.ts"

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
})
