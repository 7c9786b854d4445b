/**
 * The invite routes (DESIGN §5b, SPEC §4.9, §4.11) over the domain's `Invites` and `ManagerInvites`: one line per
 * endpoint. Without a chain, manager invites answer 501 after the permission check (`ChainGateway.layerAbsent`).
 */

import { Api } from "@svc/contract"
import { Invites, ManagerInvites } from "@svc/domain/invite"
import { TeamAccess } from "@svc/domain/membership"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { asCaller, respond, respondSettled } from "./Respond.ts"

/** The invite handlers, manager invites granted on the chain. */
export const InviteHandlers = HttpApiBuilder.group(
  Api,
  "invites",
  Effect.fn(function* (handlers) {
    const invites = yield* Invites
    const manager = yield* ManagerInvites
    return handlers.handleAll({
      // SPEC §1 rule 2: the invites list answers `data` alone.
      list: ({ query }) =>
        Effect.map(
          asCaller((me) => invites.list(me, query.nanoid)),
          (data) => ({ data })
        ),
      create: ({ payload }) => respond((me) => invites.create(me, payload)),
      accept: ({ payload }) => respond((me) => invites.accept(me, payload)),
      reject: ({ payload }) => respond((me) => invites.reject(me, payload)),
      revoke: ({ params }) => respond((me) => invites.revoke(me, params.invite_nanoid)),
      resend: ({ params }) => respond((me) => invites.resend(me, params.invite_nanoid)),
      createManager: ({ payload }) => respond((me) => manager.create(me, payload)),
      executeManager: ({ payload }) => respondSettled((me) => manager.execute(me, payload))
    })
  })
).pipe(Layer.provide(Layer.provideMerge(ManagerInvites.layer, Layer.provideMerge(Invites.layer, TeamAccess.layer))))
