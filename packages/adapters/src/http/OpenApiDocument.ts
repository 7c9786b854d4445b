/**
 * The last touch of the OpenAPI document (issue 21, item 2): component schemas no operation refers to (the error
 * classes Effect declares for every group) are left out.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, walked by key
type Json = any

/** The names of the component schemas `value` refers to. */
const referencesOf = (value: Json, found: Set<string>) => {
  const text = JSON.stringify(value)
  for (const match of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) found.add(decodeURIComponent(match[1] ?? ""))
  return found
}

/** The document with only the component schemas in use. */
export const finishDocument = (document: Record<string, Json>): Record<string, Json> => {
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
