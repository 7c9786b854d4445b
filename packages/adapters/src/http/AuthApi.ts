/**
 * Sign-In with Ethereum (SPEC §5): get a message to sign, exchange the signed message for a JWT.
 */
import { WalletAddress } from "@svc/domain/user"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Envelope } from "./Envelope.ts"

/** `svcid`: the caller's service identifier, optional (DESIGN §5). */
const SvcId = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(128, { message: "Expected an svcid of at most 128 characters" }))
)

/** `POST /v2/auth/verify` body. */
export const VerifyBody = Schema.Struct({
  message: Schema.String.pipe(
    Schema.check(Schema.isBetweenLength(1, 4096, { message: "Expected a message of 1 to 4096 characters" }))
  ),
  sig: Schema.String.pipe(
    Schema.check(
      Schema.isPattern(/^0x(?:[a-fA-F0-9]{2}){1,4096}$/, { message: "Expected a signature: 0x followed by hex bytes" })
    )
  ),
  nonce: Schema.String.pipe(
    Schema.check(Schema.isBetweenLength(8, 128, { message: "Expected a nonce of 8 to 128 characters" }))
  )
})

/** The authentication routes; they need no token. */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.get("siwe", "/v2/auth/siwe", {
      query: { wallet: WalletAddress, svcid: Schema.optional(SvcId) },
      success: Envelope(Schema.Struct({ siwe: Schema.String, nonce: Schema.String })),
      error: EndpointErrors
    }).annotate(
      OpenApi.Description,
      "An EIP-4361 message for the wallet to sign, with a single-use nonce valid about 5 minutes."
    ),
    HttpApiEndpoint.post("verify", "/v2/auth/verify", {
      payload: VerifyBody,
      success: Envelope(Schema.Struct({ jwt: Schema.String })),
      error: EndpointErrors
    }).annotate(
      OpenApi.Description,
      "Exchanges the signed message for a 24-hour JWT. An unknown wallet becomes a new user."
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Authentication" })) {}
