/**
 * The team routes (SPEC §4.2, §4.4, §4.10, §4.12) over the domain's `Teams`: one line per endpoint.
 */

import { Api } from "@svc/contract"
import { Teams } from "@svc/domain/team"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { respond, respondJson } from "./Respond.ts"

/** The team handlers. */
export const TeamHandlers = HttpApiBuilder.group(
  Api,
  "teams",
  Effect.fn(function* (handlers) {
    const teams = yield* Teams
    return handlers.handleAll({
      listMine: () => respond((me) => Effect.map(teams.listMine(me), (list) => ({ teams: list }))),
      create: ({ payload }) => respond((me) => teams.create(me, payload)),
      get: ({ params }) => respond((me) => teams.get(me, params.team_nanoid)),
      update: ({ params, payload }) => respond((me) => teams.update(me, params.team_nanoid, payload)),
      delete: ({ params }) => respond((me) => teams.delete(me, params.team_nanoid)),
      users: ({ params, query }) => respondJson((me) => teams.users(me, params.team_nanoid, query)),
      memberSummary: ({ params }) => respond((me) => teams.memberSummary(me, params.team_nanoid, params.user_nanoid)),
      removeMember: ({ params }) => respond((me) => teams.removeMember(me, params.team_nanoid, params.user_nanoid)),
      getSettings: ({ params }) => respond((me) => teams.settings(me, params.team_nanoid)),
      updateSettings: ({ params, payload }) => respond((me) => teams.updateSettings(me, params.team_nanoid, payload)),
      getMemberSettings: ({ params }) =>
        respond((me) => teams.memberSettings(me, params.team_nanoid, params.user_nanoid)),
      updateMemberSettings: ({ params, payload }) =>
        respond((me) => teams.updateMemberSettings(me, params.team_nanoid, params.user_nanoid, payload))
    })
  })
).pipe(Layer.provide(Teams.layer))
