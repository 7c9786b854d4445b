/**
 * The last touch of the OpenAPI document (issue 21, item 2): component schemas no operation refers to (the error
 * classes Effect declares for every group) are left out.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, walked by key
type Json = any

/** The names of the component schemas `value` refers to. */
const referencesOf = (value: Json): Array<string> =>
  Array.from(JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g), (match) =>
    decodeURIComponent(match[1] ?? "")
  )

/** The document with only the component schemas in use: those the rest names, and those they name in turn. */
export const finishDocument = (document: Record<string, Json>): Record<string, Json> => {
  const schemas: Record<string, Json> | undefined = document.components?.schemas
  if (schemas === undefined) return document
  const used = new Set<string>()
  const pending = referencesOf({ ...document, components: { ...document.components, schemas: {} } })
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (used.has(name)) continue
    used.add(name)
    pending.push(...referencesOf(schemas[name]))
  }
  document.components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)))
  return document
}
