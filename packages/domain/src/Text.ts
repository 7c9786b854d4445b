/**
 * Free text as people type it, bounded: names, descriptions and URLs that other people's screens show. One policy for
 * every free-text field (issue 18, item 8; docs/decisions/0059), refusing at decoding, on a written list of classes:
 * - C0 and C1 control characters and DEL (but for line feed, carriage return and tab where `multiline`);
 * - the Unicode bidirectional controls (ALM, LRM, RLM, the embeddings, overrides and isolates), which can make a name
 *   read as another (the "Trojan Source" trick);
 * - invisible format characters: zero-width space, non-joiner and joiner, word joiner and the invisible operators,
 *   the Mongolian vowel separator and the byte-order mark (U+FEFF);
 * - the line and paragraph separators U+2028 and U+2029;
 * - tag characters (U+E0000 to U+E007F), which hide text inside other text;
 * - the noncharacters U+FFFE and U+FFFF, and lone surrogates (text that is not well-formed UTF-16).
 * A name (`min` of 1 or more) must also hold more than whitespace. Letters of every script, emoji (with their joiners
 * and variation selectors) and ordinary punctuation pass.
 */
import { Schema } from "effect"

// The classes above, as one character class each for single-line and multi-line text. The zero-width joiner U+200D
// joins emoji (a family, a flag), so it is allowed; the other zero-width characters are not.
const forbiddenClasses =
  "\\u0000-\\u0008\\u000e-\\u001f\\u007f-\\u009f\\u061c\\u180e\\u200b\\u200c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff\\ufffe\\uffff"
const singleLineForbidden = new RegExp(`[${forbiddenClasses}\\u0009-\\u000d]`, "u")
const multiLineForbidden = new RegExp(`[${forbiddenClasses}\\u000b\\u000c]`, "u")
const tagCharacters = /[\u{e0000}-\u{e007f}]/u

/** Whether `text` holds a character the policy refuses (`multiline`: line breaks and tabs pass). */
export const refusedCharacter = (text: string, multiline = false): boolean =>
  !text.isWellFormed() || (multiline ? multiLineForbidden : singleLineForbidden).test(text) || tagCharacters.test(text)

/** `word` after its indefinite article: "an invite", "an unspecified", but "a user", "a loopback". */
export const withArticle = (word: string): string => `${/^(?:[aeio]|u(?!se|ni|sua))/i.test(word) ? "an" : "a"} ${word}`

/** How many characters `text` holds: Unicode code points, as JSON Schema's `minLength` and `maxLength` count them. */
export const characterCount = (text: string): number => {
  let count = 0
  for (const _ of text) count++
  return count
}

/**
 * A string of `min` to `max` characters (code points, not UTF-16 units: an emoji is one, a combining mark is one), in
 * the check and in the JSON Schema alike (`minLength`, `maxLength`).
 */
export const isCharacterLength = (min: number, max: number, annotations?: { readonly message?: string }) =>
  Schema.makeFilter(
    (text: string) => {
      const count = characterCount(text)
      return count >= min && count <= max
    },
    {
      expected: min > 0 ? `${min} to ${max} characters` : `at most ${max} characters`,
      toJsonSchema: () => (min > 0 ? { minLength: min, maxLength: max } : { maxLength: max }),
      ...annotations
    }
  )

/** Text of `min` to `max` characters without control or bidi characters (line breaks and tabs when `multiline`). */
export const PlainText = (options: {
  readonly min?: number
  readonly max: number
  readonly what: string
  readonly multiline?: boolean
}) => {
  const multiline = options.multiline === true
  const min = options.min ?? 0
  const size = min > 0 ? `${min} to ${options.max} characters` : `at most ${options.max} characters`
  return Schema.String.pipe(
    Schema.check(
      isCharacterLength(min, options.max, { message: `Expected ${options.what} of ${size}` }),
      Schema.makeFilter((text: string) => !refusedCharacter(text, multiline), {
        expected: `${options.what} without control, invisible or bidirectional characters`,
        message: `Expected ${options.what} without control, invisible or bidirectional characters`
      }),
      Schema.makeFilter((text: string) => min === 0 || text.trim() !== "", {
        expected: `${options.what} that is more than whitespace`,
        message: `Expected ${options.what} that is more than whitespace`
      })
    )
  )
}

/**
 * The shape of an http(s) URL as the schema states it (JSON Schema patterns have no flags): a host name, an optional
 * port, path and query of plain URL characters. The server takes any absolute URL `URL.parse` reads; a URL of this
 * shape is always one of them.
 */
export const urlPatternOf = (schemes: "https" | "http or https") =>
  `^${schemes === "https" ? "[Hh][Tt][Tt][Pp][Ss]" : "[Hh][Tt][Tt][Pp][Ss]?"}://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,4})?(/[A-Za-z0-9._~!$'()*+,;=:@%/-]*)?(\\?[A-Za-z0-9._~!$'()*+,;=:@%/?&-]*)?$`

/** An image URL to show: empty, or `https:` and at most 2048 characters (no `javascript:`, `data:` or `http:`). */
export const ImageUrl = Schema.String.pipe(
  Schema.check(
    isCharacterLength(0, 2048, { message: "Expected an image URL of at most 2048 characters" }),
    Schema.makeFilter((url: string) => url === "" || isHttpsUrl(url), {
      expected: "an https: URL, or empty",
      message: "Expected an https: URL, or empty",
      toJsonSchema: () => ({ anyOf: [{ maxLength: 0 }, { format: "uri", pattern: urlPatternOf("https") }] })
    })
  )
)

const isHttpsUrl = (url: string) => {
  try {
    const parsed = new URL(url)
    // A user name or password in an image URL is a credential to leak, or a way to dress up a host.
    return parsed.protocol === "https:" && parsed.username === "" && parsed.password === "" && !refusedCharacter(url)
  } catch {
    return false
  }
}
