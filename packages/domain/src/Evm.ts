/**
 * EVM values as they travel in JSON: addresses, signatures, hashes and integers as strings.
 *
 * Patterns are the spec's (SPEC §4.6, §4.9); the types are viem's template types so values pass to viem unchanged.
 */
import { Schema, SchemaTransformation } from "effect"

// A string refined to viem's `0x${string}` by the pattern alone, so OpenAPI shows that one pattern (a template
// literal would add its own `^0x.*$` beside it).
const hex = (pattern: RegExp, expected: string) =>
  Schema.String.pipe(
    Schema.refine((value): value is `0x${string}` => pattern.test(value), {
      expected,
      message: `Expected ${expected}`,
      toJsonSchema: () => ({ pattern: pattern.source })
    })
  )

/** A 20-byte account address, `0x` + 40 hex characters, any case (SPEC §4.6 `signer`). */
export const Address = hex(/^0x[a-fA-F0-9]{40}$/u, "an address: 0x followed by 40 hex characters")
export type Address = typeof Address.Type

/**
 * A wallet address in the one form the service keeps, compares and answers: lower-cased (docs/decisions/0023).
 * Decoding accepts any case, EIP-55 checksums included; SIWE messages checksum it again where EIP-4361 asks.
 */
export const WalletAddress = Address.pipe(
  Schema.decode(
    SchemaTransformation.transform({ decode: (address) => address.toLowerCase() as Address, encode: (a) => a })
  ),
  Schema.brand("WalletAddress")
)
export type WalletAddress = typeof WalletAddress.Type

/** The normal form of an address known to be well formed (a recovered signer, a viem account). */
export const walletAddressOf = (address: string): WalletAddress => Schema.decodeUnknownSync(WalletAddress)(address)

/** A 65-byte ECDSA signature, `0x` + 130 hex characters, not all zero (SPEC §4.6, §4.9 `signature`). */
export const Signature = hex(
  /^0x(?!0{130}$)[a-fA-F0-9]{130}$/u,
  "a signature: 0x followed by 130 hex characters, not all zero"
)
export type Signature = typeof Signature.Type

/** Signature bytes of any length: what ERC-1271 and ERC-6492 wallets return is longer than 65 bytes. */
export const SignatureBytes = hex(
  /^0x(?:[a-fA-F0-9]{2})+$/u,
  "signature bytes: 0x followed by an even number of hex characters"
)
export type SignatureBytes = typeof SignatureBytes.Type

/** A 32-byte word, `0x` + 64 hex characters (payment ids, group ids, digests). */
export const Bytes32 = hex(/^0x[a-fA-F0-9]{64}$/u, "32 bytes: 0x followed by 64 hex characters")
export type Bytes32 = typeof Bytes32.Type

/** Bytes, `0x` + an even number of hex characters (possibly none), at most 1 KiB (a payment's `data` is 0 or 32). */
export const HexBytes = hex(
  /^0x(?:[a-fA-F0-9]{2}){0,1024}$/u,
  "bytes: 0x followed by an even number of hex characters, at most 1024 bytes"
)
export type HexBytes = typeof HexBytes.Type

/** Any `0x`-prefixed hex (calldata, signed transactions, hashes as stored): viem's `Hex`, of any length. */
export const HexData = hex(/^0x[a-fA-F0-9]*$/u, "0x-prefixed hex")
export type HexData = typeof HexData.Type

const maxUint256 = 2n ** 256n - 1n

/** A uint256 as a decimal string without sign or leading zeros, as EIP-712 JSON carries `salt`, `amount`, ... */
export const Uint256String = Schema.String.pipe(
  Schema.check(
    Schema.isPattern(/^(0|[1-9][0-9]{0,77})$/u, {
      expected: "a uint256 as a decimal string",
      message: "Expected a uint256 as a decimal string (digits only, no leading zeros)"
    }),
    Schema.makeFilter((s) => BigInt(s) <= maxUint256 || "Expected a uint256: at most 2^256 - 1")
  )
)
export type Uint256String = typeof Uint256String.Type
