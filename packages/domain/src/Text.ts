/**
 * Free text as people type it, bounded: names, descriptions and URLs that other people's screens show. Control
 * characters (NUL and the rest of C0/C1, but for line breaks and tabs where `multiline`) and the Unicode bidirectional
 * controls, which can make a name read as another (the "Trojan Source" trick), are refused at decoding.
 */
import { Schema } from "effect"

// C0 and C1 controls, DEL, and the bidi marks, embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const singleLineForbidden = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const multiLineForbidden = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/** Text of `min` to `max` characters without control or bidi characters (line breaks and tabs when `multiline`). */
export const PlainText = (options: {
  readonly min?: number
  readonly max: number
  readonly what: string
  readonly multiline?: boolean
}) => {
  const forbidden = options.multiline === true ? multiLineForbidden : singleLineForbidden
  const min = options.min ?? 0
  const size = min > 0 ? `${min} to ${options.max} characters` : `at most ${options.max} characters`
  return Schema.String.pipe(
    Schema.check(
      Schema.isBetweenLength(min, options.max, {
        expected: `${options.what} of ${size}`,
        message: `Expected ${options.what} of ${size}`
      }),
      Schema.makeFilter((text: string) => !forbidden.test(text), {
        expected: `${options.what} without control or bidirectional characters`,
        message: `Expected ${options.what} without control or bidirectional characters`
      })
    )
  )
}

/** An image URL to show: empty, or `https:` and at most 2048 characters (no `javascript:`, `data:` or `http:`). */
export const ImageUrl = Schema.String.pipe(
  Schema.check(
    Schema.isMaxLength(2048, { message: "Expected an image URL of at most 2048 characters" }),
    Schema.makeFilter((url: string) => url === "" || isHttpsUrl(url), {
      expected: "an https: URL, or empty",
      message: "Expected an https: URL, or empty"
    })
  )
)

const isHttpsUrl = (url: string) => {
  try {
    return new URL(url).protocol === "https:" && !singleLineForbidden.test(url)
  } catch {
    return false
  }
}
