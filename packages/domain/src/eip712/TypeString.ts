/**
 * EIP-712 `encodeType` strings and type hashes, so the Solidity side can assert it hashes the very same types.
 */
import { keccak256, toBytes } from "viem"
import type { Bytes32 } from "../Evm.ts"

type Types = Readonly<Record<string, ReadonlyArray<{ readonly name: string; readonly type: string }>>>

const referenced = (types: Types, name: string, found: Set<string>): Set<string> => {
  if (found.has(name) || types[name] === undefined) return found
  found.add(name)
  for (const field of types[name]) referenced(types, field.type.replace(/\[[0-9]*\]/g, ""), found)
  return found
}

/**
 * `encodeType(primaryType)` of EIP-712: the primary type, then the types it references in alphabetical order. Throws
 * when `primaryType` is not one of `types`.
 *
 * @example
 * encodeTypeOf(PaymentRequestTypes, "CreatePaymentForwardRequest")
 * // "CreatePaymentForwardRequest(address from,address to,uint256 salt,uint256 expires,SvcPayment data)SvcPayment(...)"
 */
export const encodeTypeOf = (types: Types, primaryType: string): string => {
  // A name not among the types would encode as `Name()`, a type hash for no struct anyone signs: refused, as viem
  // and ethers refuse it.
  if (!Object.hasOwn(types, primaryType))
    throw new Error(`${primaryType} is not one of the types (${Object.keys(types).join(", ")})`)
  const [, ...dependencies] = referenced(types, primaryType, new Set())
  return [primaryType, ...dependencies.sort()]
    .map((name) => `${name}(${(types[name] ?? []).map((field) => `${field.type} ${field.name}`).join(",")})`)
    .join("")
}

/** `keccak256(encodeType(primaryType))`, the type hash a contract hard-codes. */
export const typeHashOf = (types: Types, primaryType: string): Bytes32 =>
  keccak256(toBytes(encodeTypeOf(types, primaryType)))
