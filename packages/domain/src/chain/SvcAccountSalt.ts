/**
 * Where the svc account of a team or user lives: the forwarder deploys it with CREATE2 from its owner's wallet and
 * this salt, so its address is known (and can receive tokens) before it is deployed.
 */
import { type Hex, keccak256, toHex } from "viem"

/** The CREATE2 salt of the svc account of a team or user: keccak256 of its nanoid. */
export const svcAccountSaltOf = (nanoid: string): Hex => keccak256(toHex(nanoid))
