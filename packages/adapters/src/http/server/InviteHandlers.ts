/**
 * The member invite routes (DESIGN §5b) over the domain's `Invites`: one line per endpoint. Manager invites answer
 * 501 after the permission check until they are served (`PendingHandlers`).
 */
import { Invites } from "@svc/domain/invite"
import { TeamAccess } from "@svc/domain/membership"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { apiError } from "../ApiError.ts"
import { asCaller, respond } from "./Respond.ts"

const pending = Effect.fail(apiError("NOT_IMPLEMENTED"))

/** The invite handlers. */
export const InviteHandlers = HttpApiBuilder.group(
  Api,
  "invites",
  Effect.fn(function* (handlers) {
    const invites = yield* Invites
    const access = yield* TeamAccess
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
      createManager: ({ payload }) =>
        Effect.andThen(
          asCaller((me) => access.authorize(me, payload.nanoid, "invites.manager")),
          pending
        ),
      executeManager: () => pending
    })
  })
).pipe(Layer.provide(Layer.provideMerge(Invites.layer, TeamAccess.layer)))
