/**
 * What invites need to know about the deployment: where the accept link points, and how long an invite lives.
 */
import { Context, Layer } from "effect"
import { defaultInviteTtlDays } from "./Invite.ts"

/** The invite settings. `publicBaseUrl` has no trailing slash. */
export class InviteSettings extends Context.Service<
  InviteSettings,
  { readonly publicBaseUrl: string; readonly ttlMillis: number }
>()("@svc/domain/invite/InviteSettings") {
  /** For a service reached at `publicBaseUrl`, invites living `ttlDays` (default 7, DESIGN §5b). */
  static readonly make = (options: { readonly publicBaseUrl: string; readonly ttlDays?: number | undefined }) =>
    Layer.succeed(
      InviteSettings,
      InviteSettings.of({
        publicBaseUrl: options.publicBaseUrl.replace(/\/+$/, ""),
        ttlMillis: (options.ttlDays ?? defaultInviteTtlDays) * 24 * 60 * 60 * 1000
      })
    )
}
