/** EIP-712 typed data: types, bundle schemas, builders, digest, signing, verification and execution checks. */
export * from "./IssuedRequestStore.ts"
export * from "./SignedRequest.ts"
export * from "./TypedData.ts"
export * from "./TypedDataBuilder.ts"
export * from "./TypedDataError.ts"
export * from "./TypedDataSignature.ts"
export * from "./TypeString.ts"
export * from "./Types.ts"
