import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { artifactPath, compileArtifacts, deployedContracts } from "../scripts/compile.ts"

describe("generated artifacts", () => {
  it("match a fresh compilation of the Solidity sources", () => {
    const artifacts = compileArtifacts()
    assert.deepStrictEqual([...artifacts.keys()].sort(), deployedContracts.map((name) => `${name}.ts`).sort())
    for (const [file, content] of artifacts) {
      const committed = readFileSync(artifactPath(file), "utf8")
      assert.isTrue(committed === content, `src/generated/${file} is stale: run \`pnpm -F @svc/contracts compile\``)
    }
  })
})
