#!/usr/bin/env node
// The `svc` executable. A command line starts on every call, and most of its start is loading modules: Node's
// compile cache (in the OS temp directory) makes later starts about a third cheaper, so it is on before anything loads.
// A namespace import: a Node without it (before 22.1) still starts.
import * as nodeModule from "node:module"

nodeModule.enableCompileCache?.()
const { main } = await import("./Cli.ts")
main(process.argv.slice(2))
