import { assert, describe, it } from "@effect/vitest"
import { pageRequest, pagination } from "./TeamUser.ts"

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
})
