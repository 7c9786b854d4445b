/**
 * What the server says about itself: its public URL (SIWE domain and URI) and chain.
 */
import { Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"

/** The server's public identity. `siweDomain` is the authority in `publicBaseUrl`. */
export class ServerConfig extends Context.Service<
  ServerConfig,
  {
    readonly publicBaseUrl: string
    readonly siweDomain: string
    readonly siweUri: string
    readonly chainId: number
    /** How long a sign-in nonce stays valid (about 5 minutes, SPEC §5 / issue). */
    readonly nonceTtlMillis: number
  }
>()("@svc/adapters/http/server/ServerConfig") {
  /** The config for a server reachable at `publicBaseUrl` on `chainId`. */
  static readonly make = (options: { readonly publicBaseUrl: string; readonly chainId: number }) => {
    const url = new URL(options.publicBaseUrl)
    const base = options.publicBaseUrl.replace(/\/+$/, "")
    return Layer.succeed(
      ServerConfig,
      ServerConfig.of({
        publicBaseUrl: base,
        siweDomain: url.host,
        siweUri: `${base}/v2/auth/verify`,
        chainId: options.chainId,
        nonceTtlMillis: 5 * 60 * 1000
      })
    )
  }

  /** The config for the address the HTTP server actually listens on (tests and local runs on port 0). */
  static readonly fromServerAddress = (options: { readonly chainId: number }) =>
    Layer.unwrap(
      Effect.map(HttpServer.HttpServer, (server) => {
        const base = HttpServer.formatAddress(server.address)
        return ServerConfig.make({ publicBaseUrl: base, chainId: options.chainId })
      })
    )
}
