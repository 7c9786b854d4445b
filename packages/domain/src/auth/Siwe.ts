/**
 * Sign-In with Ethereum (EIP-4361): write the message we ask a wallet to sign, read it back, check it was meant for
 * us and is current, and check its signature.
 *
 * Parsing goes through `@spruceid/siwe-parser` (the ABNF parser of the reference implementation, `siwe`, without its
 * dependency on ethers); a message is written as EIP-4361 lays it out and read back by that parser before it is
 * used, so nothing we write is one it refuses. The signature goes through the
 * `SignatureVerifier` port, so contract wallets work wherever the verifier supports them. Time comes from `Clock`
 * and nonces from `Randomness`.
 */

import { ParsedMessage } from "@spruceid/siwe-parser"
import { Clock, Effect } from "effect"
import { getAddress, type Hex, hashMessage } from "viem"
import type { Address } from "../Evm.ts"
import { type Randomness, randomHex } from "../Randomness.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import {
  SiweChainMismatch,
  SiweDomainMismatch,
  SiweExpired,
  SiweIssuedInFuture,
  SiweMalformedMessage,
  SiweNonceMismatch,
  SiweNotYetValid,
  SiweSchemeMismatch,
  SiweSignatureMismatch,
  SiweUriMismatch,
  type SiweValidationError
} from "./SiweError.ts"

/** The fields of an EIP-4361 message; times are ISO 8601 strings exactly as written in the message. */
export interface SiweFields {
  readonly scheme?: string | undefined
  readonly domain: string
  readonly address: Address
  readonly statement?: string | undefined
  readonly uri: string
  readonly version: string
  readonly chainId: number
  readonly nonce: string
  readonly issuedAt: string
  readonly expirationTime?: string | undefined
  readonly notBefore?: string | undefined
  readonly requestId?: string | undefined
  readonly resources?: ReadonlyArray<string> | undefined
}

/** What the service asks a wallet to sign in with. */
export interface SiweRequest {
  /** The wallet that will sign; written in its EIP-55 checksum form. */
  readonly address: Address
  /** Our RFC 4501 authority, e.g. `api.svc.example`. */
  readonly domain: string
  /** The URI the session is for, e.g. `https://api.svc.example/v2/auth/verify`. */
  readonly uri: string
  readonly chainId: number
  readonly statement?: string
  /** Lifetime of the message; 10 minutes unless given. */
  readonly ttlMillis?: number
  /** Use this nonce rather than a fresh one (a nonce the caller already stored). */
  readonly nonce?: string
}

/** The statement shown in the wallet unless the caller gives one. */
export const defaultStatement = "Sign in to svc."

/** Default lifetime of a sign-in message. */
export const defaultSiweTtlMillis = 10 * 60 * 1000

/** Nonce size: 16 bytes = 128 bits, written as 32 hex characters (alphanumeric, as EIP-4361 requires). */
export const siweNonceBytes = 16

/** A fresh nonce of 128 random bits. */
export const makeSiweNonce: Effect.Effect<string, never, Randomness> = randomHex(siweNonceBytes)

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The EIP-4361 text of the fields (its ABNF's layout: a statement, when there is one, between blank lines). */
const layoutOf = (fields: SiweFields): string => {
  const header = `${fields.scheme === undefined ? "" : `${fields.scheme}://`}${fields.domain} wants you to sign in with your Ethereum account:`
  const lines = [
    `URI: ${fields.uri}`,
    `Version: ${fields.version}`,
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt}`,
    ...(fields.expirationTime === undefined ? [] : [`Expiration Time: ${fields.expirationTime}`]),
    ...(fields.notBefore === undefined ? [] : [`Not Before: ${fields.notBefore}`]),
    ...(fields.requestId === undefined ? [] : [`Request ID: ${fields.requestId}`]),
    ...(fields.resources === undefined ? [] : ["Resources:", ...fields.resources.map((resource) => `- ${resource}`)])
  ]
  const statement = fields.statement === undefined ? "\n" : `\n${fields.statement}\n`
  // The address as given: the read-back refuses one not in its EIP-55 form, as the reference implementation does.
  return `${header}\n${fields.address}\n${statement}\n${lines.join("\n")}`
}

/** The fields every message has (EIP-4361's ABNF): one missing would be written as the text `undefined`. */
const requiredFields = ["domain", "address", "uri", "version", "chainId", "nonce", "issuedAt"] as const

/** Writes the fields as EIP-4361 text; fails when a field is missing or cannot appear in a valid message. */
export const formatSiweMessage = (fields: SiweFields): Effect.Effect<string, SiweMalformedMessage> =>
  Effect.try({
    try: () => {
      // `undefined wants you to sign in…` and `Nonce: undefined` parse: a missing field is refused before writing.
      const missing = requiredFields.find((name) => fields[name] === undefined || fields[name] === null)
      if (missing !== undefined) throw new Error(`${missing} is missing`)
      const message = layoutOf(fields)
      // Read back by the reference parser: a field that cannot appear in a valid message fails here.
      new ParsedMessage(message)
      return message
    },
    catch: (error) => new SiweMalformedMessage({ reason: reasonOf(error) })
  })

/**
 * The message for a wallet to sign: a fresh 128-bit nonce, issued now, expiring after the ttl.
 *
 * @example
 * const { message, fields } = yield* makeSiweMessage({ address, domain: "api.svc.example", uri, chainId: 42161 })
 * // store fields.nonce with its expiry (NonceStore), return `message` to the caller
 */
export const makeSiweMessage = Effect.fn("Siwe.makeSiweMessage")(function* (request: SiweRequest) {
  const now = yield* Clock.currentTimeMillis
  const nonce = request.nonce ?? (yield* makeSiweNonce)
  const fields: SiweFields = {
    domain: request.domain,
    address: getAddress(request.address),
    statement: request.statement ?? defaultStatement,
    uri: request.uri,
    version: "1",
    chainId: request.chainId,
    nonce,
    issuedAt: new Date(now).toISOString(),
    expirationTime: new Date(now + (request.ttlMillis ?? defaultSiweTtlMillis)).toISOString()
  }
  const message = yield* formatSiweMessage(fields)
  return { message, fields }
})

/** Reads EIP-4361 text (ABNF-checked, EIP-55 address, dates in RFC 3339). */
export const parseSiweMessage = (text: string): Effect.Effect<SiweFields, SiweMalformedMessage> =>
  Effect.try({
    try: (): SiweFields => {
      const parsed = new ParsedMessage(text)
      return {
        scheme: parsed.scheme,
        domain: parsed.domain,
        address: parsed.address as Address,
        statement: parsed.statement,
        uri: parsed.uri,
        version: parsed.version,
        chainId: parsed.chainId,
        nonce: parsed.nonce,
        issuedAt: parsed.issuedAt ?? "",
        expirationTime: parsed.expirationTime,
        notBefore: parsed.notBefore,
        requestId: parsed.requestId,
        resources: parsed.resources
      }
    },
    catch: (error) => new SiweMalformedMessage({ reason: reasonOf(error) })
  }).pipe(
    Effect.filterOrFail(
      (fields) => fields.issuedAt !== "" && !Number.isNaN(Date.parse(fields.issuedAt)),
      () => new SiweMalformedMessage({ reason: "Issued At is missing or not a date" })
    )
  )

/** What a message must match to be accepted. */
export interface SiweExpectations {
  /**
   * The origin's scheme (`https`), which a message that names a scheme must match (EIP-4361); the scheme of `uri`
   * unless given. A message without a scheme is checked on its domain alone.
   */
  readonly scheme?: string
  readonly domain: string
  readonly uri: string
  readonly chainId: number
  /** The nonce we issued (and the caller presented). */
  readonly nonce: string
  /** Tolerated difference between the signer's clock and ours, for `Issued At` and `Not Before`; 0 unless given. */
  readonly clockSkewMillis?: number
}

/** The scheme of an absolute URI (`https` of `https://api.svc.example/...`), lower-cased as RFC 3986 compares it. */
const schemeOf = (uri: string): string | undefined => /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase()

/**
 * Checks scheme, domain, URI, chain, nonce, and that `now` lies in [issued-at, expiration) and after not-before.
 *
 * @example
 * // `http://api.svc.example wants you to sign in…` against an https origin fails with SiweSchemeMismatch
 * yield* validateSiweMessage(fields, { domain: "api.svc.example", uri: "https://api.svc.example/v2/auth/verify", chainId, nonce })
 */
export const validateSiweMessage = Effect.fn("Siwe.validateSiweMessage")(function* (
  fields: SiweFields,
  expected: SiweExpectations
): Effect.fn.Return<SiweFields, SiweValidationError | SiweMalformedMessage> {
  const scheme = (expected.scheme ?? schemeOf(expected.uri))?.toLowerCase()
  if (fields.scheme !== undefined && fields.scheme.toLowerCase() !== scheme) {
    return yield* new SiweSchemeMismatch({ expected: scheme ?? "", received: fields.scheme })
  }
  if (fields.domain !== expected.domain) {
    return yield* new SiweDomainMismatch({ expected: expected.domain, received: fields.domain })
  }
  if (fields.uri !== expected.uri) {
    return yield* new SiweUriMismatch({ expected: expected.uri, received: fields.uri })
  }
  if (fields.chainId !== expected.chainId) {
    return yield* new SiweChainMismatch({ expected: expected.chainId, received: fields.chainId })
  }
  if (fields.nonce !== expected.nonce) {
    return yield* new SiweNonceMismatch({ expected: expected.nonce, received: fields.nonce })
  }
  const now = yield* Clock.currentTimeMillis
  const nowIso = new Date(now).toISOString()
  const skew = expected.clockSkewMillis ?? 0
  const time = (label: string, iso: string) => {
    const millis = Date.parse(iso)
    return Number.isNaN(millis)
      ? Effect.fail(new SiweMalformedMessage({ reason: `${label} is not a date: ${iso}` }))
      : Effect.succeed(millis)
  }
  if ((yield* time("Issued At", fields.issuedAt)) > now + skew) {
    return yield* new SiweIssuedInFuture({ issuedAt: fields.issuedAt, now: nowIso })
  }
  if (fields.notBefore !== undefined && (yield* time("Not Before", fields.notBefore)) > now + skew) {
    return yield* new SiweNotYetValid({ notBefore: fields.notBefore, now: nowIso })
  }
  if (fields.expirationTime !== undefined && (yield* time("Expiration Time", fields.expirationTime)) <= now) {
    return yield* new SiweExpired({ expirationTime: fields.expirationTime, now: nowIso })
  }
  return fields
})

/** The signed text, the signature and what the message must match. */
export interface VerifySiweParameters {
  readonly message: string
  readonly signature: Hex
  readonly expected: SiweExpectations
}

/**
 * Parses, validates and checks the signature of a sign-in: the result is the signed fields, whose `address` is the
 * authenticated wallet. The nonce must still be consumed (NonceStore) by the caller to make it single-use.
 */
export const verifySiweMessage = Effect.fn("Siwe.verifySiweMessage")(function* (
  parameters: VerifySiweParameters
): Effect.fn.Return<SiweFields, SiweValidationError | SiweMalformedMessage | SiweSignatureMismatch, SignatureVerifier> {
  const fields = yield* parseSiweMessage(parameters.message)
  yield* validateSiweMessage(fields, parameters.expected)
  const verifier = yield* SignatureVerifier
  const valid = yield* verifier.verifyHash({
    signer: fields.address,
    hash: hashMessage(parameters.message),
    signature: parameters.signature
  })
  if (!valid) return yield* new SiweSignatureMismatch({ address: fields.address })
  return fields
})
