/**
 * The webhook use cases (SPEC §4.1, §4.8, DESIGN §5b) as one service: endpoints of a team, their secrets, the delivery
 * log, replay and test deliveries, each in a file of its own (`CreateWebhook.ts`, `RotateSecret.ts`, ...), for a
 * caller who may manage the team's webhooks (`webhooks.manage`, team admins). A route that names an endpoint answers
 * `WebhookNotFound` to anyone else, so it reveals nothing of the endpoint.
 */
import { Context, type Effect, Layer } from "effect"
import type { DeliveryId, IdGenerator, TeamId, WebhookId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Randomness } from "../Randomness.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import { createWebhook } from "./CreateWebhook.ts"
import { deleteWebhook } from "./DeleteWebhook.ts"
import { getWebhook } from "./GetWebhook.ts"
import { listDeliveries } from "./ListDeliveries.ts"
import { listWebhooks } from "./ListWebhooks.ts"
import { recoverDeliveries } from "./RecoverDeliveries.ts"
import { retryDelivery } from "./RetryDelivery.ts"
import { rotateSecret } from "./RotateSecret.ts"
import { sendTestDelivery } from "./SendTestDelivery.ts"
import { updateWebhook } from "./UpdateWebhook.ts"
import type { InvalidCursor, WebhookDisabled, WebhookTeamError } from "./WebhookAccess.ts"
import type { WebhookEndpoint, WebhookSecret } from "./WebhookEndpoint.ts"
import type {
  DeliveryNotFound,
  WebhookDeliveryStore,
  WebhookEndpointRepository,
  WebhookNotFound
} from "./WebhookRepository.ts"
import type {
  CreatedWebhook,
  CreateWebhookRequest,
  DeliveriesQuery,
  DeliveryPage,
  DeliveryView,
  UpdateWebhookRequest,
  WebhookTestRequest,
  WebhookTestResult
} from "./WebhookRequests.ts"
import type { WebhookSecretBox } from "./WebhookSender.ts"
import type { InvalidWebhookUrl, WebhookUrlPolicy } from "./WebhookUrlPolicy.ts"

export { deliveryViewOf } from "./ListDeliveries.ts"
export { InvalidCursor, makeWebhookSecret, WebhookDisabled, type WebhookTeamError } from "./WebhookAccess.ts"

/** What the webhook use cases run on. */
type WebhookPorts =
  | TeamAccess
  | WebhookEndpointRepository
  | WebhookDeliveryStore
  | WebhookSecretBox
  | WebhookUrlPolicy
  | IdGenerator
  | Randomness

/** Webhook endpoints and their deliveries, for a caller. */
export class Webhooks extends Context.Service<
  Webhooks,
  {
    /** Registers an endpoint; the answer carries its signing secret, shown this once. */
    readonly create: (
      caller: Caller,
      body: CreateWebhookRequest
    ) => Effect.Effect<CreatedWebhook, WebhookTeamError | InvalidWebhookUrl>
    readonly get: (caller: Caller, id: WebhookId) => Effect.Effect<WebhookEndpoint, WebhookNotFound>
    readonly list: (
      caller: Caller,
      team: TeamId
    ) => Effect.Effect<{ readonly items: ReadonlyArray<WebhookEndpoint> }, WebhookTeamError>
    /** Changes an endpoint; enabling a disabled one re-queues what failed while it was off. */
    readonly update: (
      caller: Caller,
      id: WebhookId,
      body: UpdateWebhookRequest
    ) => Effect.Effect<WebhookEndpoint, WebhookNotFound | InvalidWebhookUrl>
    readonly delete: (
      caller: Caller,
      id: WebhookId
    ) => Effect.Effect<{ readonly webhook_nanoid: WebhookId; readonly deleted: true }, WebhookNotFound>
    /** A new secret; the previous one keeps signing beside it for 24 h. */
    readonly rotateSecret: (
      caller: Caller,
      id: WebhookId
    ) => Effect.Effect<{ readonly secret: WebhookSecret; readonly previous_expires_at: string }, WebhookNotFound>
    readonly deliveries: (
      caller: Caller,
      id: WebhookId,
      query: DeliveriesQuery
    ) => Effect.Effect<DeliveryPage, WebhookNotFound | InvalidCursor>
    /** Sends one delivery again now. */
    readonly retry: (
      caller: Caller,
      id: WebhookId,
      delivery: DeliveryId
    ) => Effect.Effect<DeliveryView, WebhookNotFound | DeliveryNotFound>
    /** Re-queues every failed delivery created at or after `since`. */
    readonly recover: (
      caller: Caller,
      id: WebhookId,
      since: string
    ) => Effect.Effect<{ readonly requeued: number }, WebhookNotFound>
    /** A real delivery of a sample payload of the kind and major asked for, in the log like any other. */
    readonly test: (
      caller: Caller,
      id: WebhookId,
      body: WebhookTestRequest
    ) => Effect.Effect<WebhookTestResult, WebhookNotFound | WebhookDisabled>
  }
>()("@svc/domain/webhook/Webhooks") {
  /** On the webhook ports, `TeamAccess`, `IdGenerator`, `Randomness` and `WebhookUrlPolicy`. */
  static readonly layer = useCaseLayer<WebhookPorts>()(Webhooks, (run) => ({
    create: (caller, body) => run(createWebhook(caller, body)),
    get: (caller, id) => run(getWebhook(caller, id)),
    list: (caller, team) => run(listWebhooks(caller, team)),
    update: (caller, id, body) => run(updateWebhook(caller, id, body)),
    delete: (caller, id) => run(deleteWebhook(caller, id)),
    rotateSecret: (caller, id) => run(rotateSecret(caller, id)),
    deliveries: (caller, id, query) => run(listDeliveries(caller, id, query)),
    retry: (caller, id, delivery) => run(retryDelivery(caller, id, delivery)),
    recover: (caller, id, since) => run(recoverDeliveries(caller, id, since)),
    test: (caller, id, body) => run(sendTestDelivery(caller, id, body))
  })).pipe(Layer.provide(TeamAccess.layer))
}
