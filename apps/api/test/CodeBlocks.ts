/**
 * The TypeScript in the docs, as files (issue 35, item 1): the client's README and the docs show code an integrator
 * pastes, and `Consumer.test.ts` compiles and runs it against the packed tarballs, so a block that stops compiling
 * fails `npm test`.
 */
import { readFileSync } from "node:fs"

/** One ```ts block: the file it is (its first line's `// name.ts`, else `<prefix>-<n>.ts`) and its code. */
export interface CodeBlock {
  readonly file: string
  readonly code: string
}

/** The ```ts blocks of a Markdown file, in order. */
export const typeScriptBlocks = (markdownFile: string, prefix: string): ReadonlyArray<CodeBlock> =>
  [...readFileSync(markdownFile, "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, index) => {
    const code = match[1] ?? ""
    const named = /^\/\/ ([\w-]+\.ts)\n/.exec(code)?.[1]
    return { file: named ?? `${prefix}-${index + 1}.ts`, code }
  })

/** Whether a block uses the client (the docs' other blocks use other libraries, or are fragments of a page). */
export const usesClient = (block: CodeBlock) => /from "@svc\/client"/.test(block.code)
