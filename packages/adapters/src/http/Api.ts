/**
 * The svc HTTP contract: every group of the v2 API. Served by `apps/api`, and the source of the typed client.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { SystemApi } from "./SystemApi.ts"

/** The whole API, annotated for OpenAPI 3.1. */
export class Api extends HttpApi.make("svc")
  .add(SystemApi)
  .annotateMerge(
    OpenApi.annotations({
      title: "svc team payments API",
      version: "2.0.0",
      description: "Team payments in USDC, authorised by EIP-712 signatures and settled on an EVM chain."
    })
  ) {}
