/**
 * Ids and addresses given on the command line, checked with the domain's schemas before any request, so a typo says
 * which argument is wrong and why.
 */
import { WalletAddress } from "@svc/domain/Evm"
import { DeliveryId, InviteId, InvoiceId, TeamId, UserId, WebhookId } from "@svc/domain/Ids"
import { Effect, Schema } from "effect"
import { badArgument, type CliFailure } from "../Failure.ts"

const check =
  <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, expected: string) =>
  (name: string, value: string): Effect.Effect<S["Type"], CliFailure> =>
    Schema.decodeUnknownEffect(schema)(value).pipe(
      Effect.mapError(() => badArgument(name, `"${value}" is not ${expected}`))
    )

/** A team nanoid (te- and 12 characters). */
export const teamId = check(TeamId, "a team nanoid (te- and 12 characters)")
/** A user nanoid (us- and 12 characters). */
export const userId = check(UserId, "a user nanoid (us- and 12 characters)")
/** A webhook endpoint nanoid (wh- and 12 characters). */
export const webhookId = check(WebhookId, "a webhook nanoid (wh- and 12 characters)")
/** A webhook delivery nanoid (dl-...). */
export const deliveryId = check(DeliveryId, "a delivery nanoid (dl-...)")
/** An invite nanoid (in- and 12 characters). */
export const inviteId = check(InviteId, "an invite nanoid (in- and 12 characters)")
/** An invoice nanoid (iv-...). */
export const invoiceId = check(InvoiceId, "an invoice nanoid (iv-...)")
/** A wallet address (0x and 40 hex digits). */
export const walletAddress = check(WalletAddress, "a wallet address (0x and 40 hex digits)")
