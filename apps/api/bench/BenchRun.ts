/**
 * What every API benchmark records with its figures: the machine and the commit measured.
 */
import { execFileSync } from "node:child_process"
import { cpus } from "node:os"

/** The CPU model and count, and the Node version. */
export const machine = (): string => `${cpus()[0]?.model ?? "unknown cpu"} x${cpus().length}, Node ${process.version}`

/** The short hash of the checked-out commit, or `unknown` outside a git checkout. */
export const commit = (): string => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim()
  } catch {
    return "unknown"
  }
}
