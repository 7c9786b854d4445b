/**
 * The single-use token an invite's e-mail carries: 256 random bits, shown once in the link, stored only as its
 * sha256, and compared by that hash.
 */
import { Effect } from "effect"
import { sha256, stringToBytes } from "viem"
import { randomHex } from "../Randomness.ts"

/** A fresh token: 32 random bytes as 64 hex characters. */
export const newInviteToken = randomHex(32)

/** The stored form of a token: its sha256, lower-case hex without `0x`. */
export const hashInviteToken = (token: string): string => sha256(stringToBytes(token)).slice(2)

/** A fresh token with its hash. */
export const makeInviteToken = Effect.map(newInviteToken, (token) => ({ token, hash: hashInviteToken(token) }))
