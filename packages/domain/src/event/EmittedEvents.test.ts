/**
 * docs/webhooks.md's table of emitted kinds is `emittedEventTypes`, no more and no fewer (issue 21, item 5). Code can
 * only make an event of a listed kind (`NewEvent`), and each listed kind is named by an emitter outside the catalog.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { emittedEventTypes } from "./EventCatalog.ts"

const root = resolve(import.meta.dirname, "../../../..")
const sources = resolve(import.meta.dirname, "..")

/** The kinds in the first column of the "Which operation emits which kind" table. */
const documentedKinds = (markdown: string): Array<string> => {
  const section = markdown.split("## Which operation emits which kind")[1]?.split("\n## ")[0] ?? ""
  return section
    .split("\n")
    .map((line) => /^\|\s*`([a-z_.]+)`\s*\|/.exec(line)?.[1])
    .filter((kind): kind is string => kind !== undefined)
}

/** The domain's source files, but for tests and the catalog's own definitions of every kind. */
const emitterSources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return emitterSources(path)
    const file = relative(sources, path)
    return file.endsWith(".ts") && !file.endsWith(".test.ts") && !["event/EventCatalog.ts"].includes(file)
      ? [readFileSync(path, "utf8")]
      : []
  })

describe("emitted event kinds", () => {
  it("docs/webhooks.md lists exactly the kinds the service emits", () => {
    const documented = documentedKinds(readFileSync(join(root, "docs/webhooks.md"), "utf8"))
    assert.deepStrictEqual([...documented].sort(), [...emittedEventTypes].sort())
  })

  it("docs/payments.md names every payment kind the service emits, and that the dispatcher delivers them", () => {
    const events = readFileSync(join(root, "docs/payments.md"), "utf8").split("## Events")[1]?.split("\n## ")[0] ?? ""
    for (const kind of emittedEventTypes.filter((kind) => kind.startsWith("payment."))) {
      assert.include(events, `\`${kind}\``, kind)
    }
    assert.notInclude(events, "not built yet")
  })

  it("each kind listed as emitted is named by code that emits it", () => {
    const code = emitterSources(sources).join("\n")
    for (const kind of emittedEventTypes) assert.include(code, `"${kind}"`, kind)
  })
})
