import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { findViolations, importsOf } from "./dependency-rule.ts"

const trees: Array<string> = []
const tree = (files: Record<string, string>) => {
  const root = mkdtempSync(join(tmpdir(), "svc-deps-"))
  trees.push(root)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  mkdirSync(join(root, "apps"), { recursive: true })
  return root
}
afterEach(() => {
  for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true })
})

describe("dependency rule", () => {
  it("reads static, side-effect, type-only, re-export and dynamic imports", () => {
    const source = `import { a } from "effect"\nimport type { B } from 'viem'\nimport "siwe"\nexport * from "./x.ts"\nconst m = await import("nanoid")\n`
    expect(importsOf(source)).toEqual(["effect", "viem", "siwe", "./x.ts", "nanoid"])
  })

  it("allows the domain its four libraries and its own files", () => {
    const root = tree({
      "packages/domain/src/a.ts": `import { Schema } from "effect/Schema"\nimport { keccak256 } from "viem"\nimport { ParsedMessage } from "@spruceid/siwe-parser"\nimport { nanoid } from "nanoid"\nimport { b } from "./b.ts"`,
      "packages/domain/src/a.test.ts": `import { Wallet } from "ethers"`
    })
    expect(findViolations(root)).toEqual([])
  })

  it("catches the domain importing an I/O library, node, another package or a path outside it", () => {
    const root = tree({
      "packages/domain/src/a.ts": `import { MongoClient } from "mongodb"\nimport { readFileSync } from "node:fs"\nimport { x } from "@svc/adapters/http"\nimport { y } from "../../adapters/src/y.ts"`
    })
    expect(findViolations(root).map((v) => v.specifier)).toEqual([
      "mongodb",
      "node:fs",
      "@svc/adapters/http",
      "../../adapters/src/y.ts"
    ])
  })

  it("catches a package importing an app, by name or by path, in any file", () => {
    const root = tree({
      "packages/adapters/src/a.ts": `import { Server } from "@svc/api/Server"`,
      "packages/contracts/src/b.test.ts": `import { c } from "../../../apps/cli/src/Cli.ts"`
    })
    expect(findViolations(root).map((v) => [v.file, v.rule])).toEqual([
      ["packages/adapters/src/a.ts", "a package must not import an app"],
      ["packages/contracts/src/b.test.ts", "a package must not import an app"]
    ])
  })

  it("lets only the HTTP adapter, the API's composition root and tests import the HTTP server", () => {
    const root = tree({
      "packages/adapters/src/http/server/TeamHandlers.ts": `import { respond } from "./Respond.ts"`,
      "packages/adapters/src/http/Api.ts": `import { x } from "./server/index.ts"`,
      "apps/api/src/Server.ts": `import { TeamHandlers } from "@svc/adapters/http/server"`,
      "apps/api/src/main.ts": `import { ServerConfig } from "@svc/adapters/http/server"`,
      "apps/api/test/TestServer.ts": `import { ServerConfig } from "@svc/adapters/http/server"`,
      "apps/api/src/Teams.test.ts": `import { TeamHandlers } from "@svc/adapters/http/server"`,
      "apps/api/src/IntentRunner.ts": `import { recipientsOf } from "@svc/adapters/http/server"`,
      "apps/cli/src/Cli.ts": `import { apiError } from "@svc/adapters/http"\nimport { s } from "@svc/adapters/http/server/Respond.ts"`,
      "packages/adapters/src/evm/Relayer.ts": `import { t } from "../http/server/TeamHandlers.ts"`,
      "packages/domain/src/a.ts": `import { u } from "@svc/adapters/http/server"`
    })
    expect(findViolations(root).map((v) => [v.file, v.specifier])).toEqual([
      ["apps/api/src/IntentRunner.ts", "@svc/adapters/http/server"],
      ["apps/cli/src/Cli.ts", "@svc/adapters/http/server/Respond.ts"],
      ["packages/adapters/src/evm/Relayer.ts", "../http/server/TeamHandlers.ts"],
      ["packages/domain/src/a.ts", "@svc/adapters/http/server"]
    ])
  })

  it("lets the console's browser code call the API only through the client", () => {
    const root = tree({
      "apps/console/src/App.tsx": `import { createSvcClient } from "@svc/client"\nimport { isAllowed } from "@svc/domain/membership"\nimport { useQuery } from "@tanstack/react-query"\nimport { useState } from "react"\nimport { Page } from "./Page.tsx"`,
      "apps/console/src/Bad.tsx": `import { makeApiClient } from "@svc/contract"\nimport { SqliteDatabase } from "@svc/adapters/sqlite"\nimport { x } from "../../cli/src/Cli.ts"`,
      "apps/console/src/Console.test.ts": `import { call } from "@svc/api/TestServer"`,
      "apps/console/scripts/Build.ts": `import { build } from "vite"`,
      "packages/client/src/a.ts": `import { App } from "@svc/console"`
    })
    expect(findViolations(root).map((v) => [v.file, v.specifier])).toEqual([
      ["apps/console/src/Bad.tsx", "@svc/contract"],
      ["apps/console/src/Bad.tsx", "@svc/adapters/sqlite"],
      ["apps/console/src/Bad.tsx", "../../cli/src/Cli.ts"],
      ["packages/client/src/a.ts", "@svc/console"]
    ])
  })

  it("holds for this repository", () => {
    expect(findViolations(resolve(import.meta.dirname, ".."))).toEqual([])
  })
})
