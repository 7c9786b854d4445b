/**
 * The webhook routes (SPEC §4.1, §4.8, DESIGN §5b) over the domain's `Webhooks`: one line per endpoint.
 */

import { Api } from "@svc/contract"
import { Webhooks } from "@svc/domain/webhook"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { respond } from "./Respond.ts"

/** The webhook handlers. */
export const WebhookHandlers = HttpApiBuilder.group(
  Api,
  "webhooks",
  Effect.fn(function* (handlers) {
    const webhooks = yield* Webhooks
    return handlers.handleAll({
      create: ({ payload }) => respond((me) => webhooks.create(me, payload)),
      list: ({ query }) => respond((me) => webhooks.list(me, query.team_nanoid)),
      get: ({ params }) => respond((me) => webhooks.get(me, params.webhook_nanoid)),
      update: ({ params, payload }) => respond((me) => webhooks.update(me, params.webhook_nanoid, payload)),
      delete: ({ params }) => respond((me) => webhooks.delete(me, params.webhook_nanoid)),
      rotateSecret: ({ params }) => respond((me) => webhooks.rotateSecret(me, params.webhook_nanoid)),
      deliveries: ({ params, query }) => respond((me) => webhooks.deliveries(me, params.webhook_nanoid, query)),
      retry: ({ params }) => respond((me) => webhooks.retry(me, params.webhook_nanoid, params.delivery_nanoid)),
      recover: ({ params, payload }) => respond((me) => webhooks.recover(me, params.webhook_nanoid, payload.since)),
      test: ({ params, payload }) => respond((me) => webhooks.test(me, params.webhook_nanoid, payload))
    })
  })
).pipe(Layer.provide(Webhooks.layer))
