/**
 * The HTTP adapter's own part beside the contract (`@svc/contract`): the access tokens the server signs and checks.
 * The handlers are in `./server`.
 */
export {
  AccessTokens,
  SessionTooOld,
  signedInAt,
  type TokenClaims,
  TokenRefused,
  tokenLifetimeSeconds
} from "./AccessTokens.ts"
