/** Sign-In with Ethereum and the nonce port. */
export * from "./NonceStore.ts"
export * from "./Siwe.ts"
export * from "./SiweError.ts"
