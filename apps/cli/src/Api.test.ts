/**
 * `allPages`, which the list commands (`payments list`, `deposits list`) read every page through: `--json` prints the
 * API's `data` whole, `next_cursor` and every other field included, with the items of all pages as the API sent them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type Answer, allPages } from "./Api.ts"

type Page = {
  readonly data: { readonly items: ReadonlyArray<{ readonly n: number }>; readonly next_cursor: string | null }
}

/** The API's pages, each body as sent (with a field the CLI does not know) and as decoded. */
const bodies = [
  '{"success":true,"data":{"items":[{"n":1,"raw":"a"}],"next_cursor":"c1","note":"x"}}',
  '{"success":true,"data":{"items":[{"n":2,"raw":"b"}],"next_cursor":"c2","note":"x"}}',
  '{"success":true,"data":{"items":[{"n":3,"raw":"c"}],"next_cursor":null,"note":"x"}}'
]
const pages = (count: number) => {
  const asked: Array<string | undefined> = []
  const page = (cursor: string | undefined): Effect.Effect<Answer<Page>> => {
    asked.push(cursor)
    const index = cursor === undefined ? 0 : Number(cursor.slice(1))
    const text = index === count - 1 ? bodies[2]!.replace('"n":3', `"n":${index + 1}`) : bodies[index]!
    const parsed = JSON.parse(text)
    return Effect.succeed({
      text,
      value: { data: { items: [{ n: parsed.data.items[0].n }], next_cursor: parsed.data.next_cursor } }
    })
  }
  return { page, asked }
}

describe("allPages", () => {
  it.effect("one page is the API's body exactly", () =>
    Effect.gen(function* () {
      const { page, asked } = pages(1)
      const answer = yield* allPages(page)
      assert.strictEqual(answer.text, bodies[2]!.replace('"n":3', '"n":1'))
      assert.deepStrictEqual(asked, [undefined])
    })
  )

  it.effect("several pages: every item as sent, in order, in the last page's body with its next_cursor (null)", () =>
    Effect.gen(function* () {
      const { page, asked } = pages(3)
      const answer = yield* allPages(page)
      assert.deepStrictEqual(asked, [undefined, "c1", "c2"])
      assert.deepStrictEqual(JSON.parse(answer.text), {
        success: true,
        data: {
          items: [
            { n: 1, raw: "a" },
            { n: 2, raw: "b" },
            { n: 3, raw: "c" }
          ],
          next_cursor: null,
          note: "x"
        }
      })
      assert.deepStrictEqual(
        answer.value.data.items.map((item) => item.n),
        [1, 2, 3]
      )
    })
  )
})
