/** Signature verification shared by EIP-712 requests and SIWE. */
export * from "./SignatureVerifier.ts"
