import { describe, expect, it } from "vitest"
import { excerpt } from "./Output.ts"

describe("excerpt", () => {
  it("shows what a terminal would act on escaped, on one line", () => {
    expect(excerpt('{"ok":true}\r\n\tnext \u001b[2J\u009b31m\u202eevil\u0000', { max: 100 })).toBe(
      '{"ok":true}\\r\\n\\tnext \\u001b[2J\\u009b31m\\u202eevil\\u0000'
    )
  })

  it("cuts at max characters with an ellipsis, and marks a text already cut", () => {
    expect(excerpt("abcdef", { max: 4 })).toBe("abc…")
    expect(excerpt("😀😀😀", { max: 3 })).toBe("😀😀😀")
    expect(excerpt("abc", { max: 4, cut: true })).toBe("abc…")
    expect(excerpt("", { max: 4 })).toBe("")
  })
})
