import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { EmailFilter, pageRequest, pagination } from "./TeamUser.ts"

describe("team users paging", () => {
  it("without page or offset: the full list, described as one page", () => {
    const request = pageRequest({ count: 10 })
    assert.deepStrictEqual(request, { offset: 0, count: 10, paged: false })
    assert.deepStrictEqual(pagination(request, 42, 42), {
      page: 1,
      count: 42,
      offset: 0,
      next_page: 2,
      next_offset: 42,
      has_more: false
    })
  })

  it("pages are 1-indexed; offset wins over page; next_* point past the page", () => {
    assert.deepStrictEqual(pageRequest({ page: 3, count: 20 }), { offset: 40, count: 20, paged: true })
    assert.deepStrictEqual(pageRequest({ page: 3, offset: 5 }), { offset: 5, count: 100, paged: true })
    assert.deepStrictEqual(pagination({ offset: 40, count: 20, paged: true }, 20, 100), {
      page: 3,
      count: 20,
      offset: 40,
      next_page: 4,
      next_offset: 60,
      has_more: true
    })
    assert.isFalse(pagination({ offset: 80, count: 20, paged: true }, 20, 100).has_more)
  })

  it("when nothing follows, next_* name the end and never go past it; the end names itself (decision 0040)", () => {
    const end = { next_page: 7, next_offset: 105, has_more: false }
    // The last page, partly filled: the next page holds nothing, and starts after the end.
    assert.deepStrictEqual(pagination({ offset: 100, count: 20, paged: true }, 5, 105), {
      page: 6,
      count: 20,
      offset: 100,
      ...end
    })
    // Asked past the end, by page or by offset: next_* point back at the end instead of further on.
    assert.deepStrictEqual(pagination({ offset: 1_000_000, count: 20, paged: true }, 0, 105), {
      page: 50_001,
      count: 20,
      offset: 1_000_000,
      ...end
    })
    // The end page and the end offset answer themselves: a client following next_* until nothing changes stops.
    const endPage = pagination({ offset: 120, count: 20, paged: true }, 0, 105)
    assert.strictEqual(endPage.page, 7)
    assert.strictEqual(endPage.next_page, 7)
    const endOffset = pagination({ offset: 105, count: 20, paged: true }, 0, 105)
    assert.strictEqual(endOffset.next_offset, 105)
    // A page that ends exactly at the end: the next page would hold nothing.
    assert.deepStrictEqual(pagination({ offset: 80, count: 25, paged: true }, 25, 105), {
      page: 4,
      count: 25,
      offset: 80,
      next_page: 6,
      next_offset: 105,
      has_more: false
    })
    // Nothing at all (an e-mail filter matching nobody): page 1, offset 0.
    assert.deepStrictEqual(pagination({ offset: 0, count: 100, paged: false }, 0, 0), {
      page: 1,
      count: 0,
      offset: 0,
      next_page: 1,
      next_offset: 0,
      has_more: false
    })
  })
})

describe("team users e-mail filter", () => {
  const decode = Schema.decodeUnknownExit(EmailFilter)

  it("joins repeated keys and comma-separated lists into one list in normal form, without empty entries", () => {
    const emails = decode([" Ada@Example.COM,bob@example.com ", ",", "carl@example.com"])
    assert.deepStrictEqual(emails._tag === "Success" ? emails.value : emails, [
      "ada@example.com",
      "bob@example.com",
      "carl@example.com"
    ])
  })

  it("takes at most 100 e-mails of at most 254 characters, with messages that say so", () => {
    const list = (n: number) => [Array.from({ length: n }, (_, i) => `u${i}@example.com`).join(",")]
    assert.strictEqual(decode(list(100))._tag, "Success")
    assert.include(String(decode(list(101))), "At most 100 e-mails may be given, got 101")
    assert.include(String(decode([`${"a".repeat(243)}@example.com`])), "An e-mail is longer than 254 characters")
  })
})
