/**
 * The last touches of the OpenAPI document, so it says what the server does (issue 21, item 2):
 * - every operation can answer 431: Node refuses a request line and headers over its 16 KiB limit before any route
 *   runs, whatever the path;
 * - component schemas no operation refers to (the error classes Effect declares for every group) are left out.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, walked by key
type Json = any

const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])

const headerLimit = {
  description:
    "Request Header Fields Too Large: the request line and headers exceed 16 KiB (Node's limit). Answered before any " +
    "route runs, without a body."
}

/** The names of the component schemas `value` refers to. */
const referencesOf = (value: Json, found: Set<string>) => {
  const text = JSON.stringify(value)
  for (const match of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) found.add(decodeURIComponent(match[1] ?? ""))
  return found
}

/** The document with 431 on every operation and only the component schemas in use. */
export const finishDocument = (document: Record<string, Json>): Record<string, Json> => {
  for (const item of Object.values(document.paths ?? {}) as Array<Record<string, Json>>) {
    for (const [method, operation] of Object.entries(item)) {
      if (methods.has(method)) operation.responses = { ...operation.responses, "431": headerLimit }
    }
  }
  const schemas: Record<string, Json> = document.components?.schemas ?? {}
  const used = referencesOf({ ...document, components: { ...document.components, schemas: {} } }, new Set())
  for (let added = true; added; ) {
    added = false
    for (const name of [...used]) {
      const before = used.size
      referencesOf(schemas[name], used)
      if (used.size > before) added = true
    }
  }
  if (document.components?.schemas !== undefined) {
    document.components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)))
  }
  return document
}
