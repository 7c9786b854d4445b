/**
 * Sign-In with Ethereum (SPEC §5): get a message to sign, exchange the signed message for a JWT.
 */
import { SiweChallenge, SiweChallengeQuery, SiweVerified, SiweVerifyRequest } from "@svc/domain/auth"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { Envelope } from "./Envelope.ts"
import { answers } from "./OperationDocs.ts"

/** The authentication routes; they need no token, but for renewing one. */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.get("siwe", "/v2/auth/siwe", {
      query: SiweChallengeQuery.fields,
      success: Envelope(SiweChallenge),
      error: EndpointErrors
    })
      .annotate(
        OpenApi.Description,
        "An EIP-4361 message for the wallet to sign, with a single-use nonce valid about 5 minutes."
      )
      .annotate(OpenApi.Summary, "Get a sign-in message (SIWE)")
      .pipe(answers([])),
    HttpApiEndpoint.post("verify", "/v2/auth/verify", {
      payload: SiweVerifyRequest,
      success: Envelope(SiweVerified),
      error: EndpointErrors
    })
      .annotate(
        OpenApi.Description,
        "Exchanges the signed message for a 24-hour JWT. An unknown wallet becomes a new user."
      )
      .annotate(OpenApi.Summary, "Sign in: exchange the signed message for a JWT")
      .pipe(
        answers([
          "INVALID_SIWE_MESSAGE",
          "SIGNATURE_MISMATCH",
          "EXPIRED_NONCE",
          "SIWE_EXPIRED",
          "SIWE_MISMATCH",
          "SIWE_NOT_YET_VALID"
        ])
      ),
    HttpApiEndpoint.post("refresh", "/v2/auth/refresh", {
      success: Envelope(SiweVerified),
      error: EndpointErrors
    })
      .middleware(Authentication)
      .annotate(
        OpenApi.Description,
        "Exchanges a valid token for a new 24-hour one of the same session, without a signature: a web app renews " +
          "its session quietly before it expires. A session is renewed for 7 days after its wallet signed in; then " +
          "401 `UNAUTHORIZED`, and the wallet signs in again (docs/decisions/0102)."
      )
      .annotate(OpenApi.Summary, "Renew the session: a new JWT for a valid one")
      .pipe(answers([]))
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Authentication",
      description: "Sign in with Ethereum (EIP-4361): a challenge, a wallet signature, a 24-hour JWT."
    })
  ) {}
