/** Sign-In with Ethereum and the nonce port. */

export * from "./AuthRequests.ts"
export * from "./NonceStore.ts"
export * from "./SignIn.ts"
export * from "./Siwe.ts"
export * from "./SiweError.ts"
