/**
 * The team routes (SPEC §4.2, §4.4, §4.10, §4.12) over the domain's `Teams`, `Members` and `Settings`: one line per
 * endpoint.
 */

import { Api } from "@svc/contract"
import { Members } from "@svc/domain/membership"
import { Settings, Teams } from "@svc/domain/team"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { respond, respondJson } from "./Respond.ts"

/** The team handlers. */
export const TeamHandlers = HttpApiBuilder.group(
  Api,
  "teams",
  Effect.fn(function* (handlers) {
    const teams = yield* Teams
    const members = yield* Members
    const settings = yield* Settings
    return handlers.handleAll({
      listMine: () => respond((me) => Effect.map(teams.listMine(me), (list) => ({ teams: list }))),
      create: ({ payload }) => respond((me) => teams.create(me, payload)),
      get: ({ params }) => respond((me) => teams.get(me, params.team_nanoid)),
      update: ({ params, payload }) => respond((me) => teams.update(me, params.team_nanoid, payload)),
      delete: ({ params }) => respond((me) => teams.delete(me, params.team_nanoid)),
      users: ({ params, query }) => respondJson((me) => teams.users(me, params.team_nanoid, query)),
      memberSummary: ({ params }) => respond((me) => members.summary(me, params.team_nanoid, params.user_nanoid)),
      removeMember: ({ params }) => respond((me) => members.remove(me, params.team_nanoid, params.user_nanoid)),
      blockMember: ({ params, payload }) =>
        respond((me) => members.block(me, params.team_nanoid, params.user_nanoid, payload)),
      getSettings: ({ params }) => respond((me) => settings.team(me, params.team_nanoid)),
      updateSettings: ({ params, payload }) => respond((me) => settings.updateTeam(me, params.team_nanoid, payload)),
      getMemberSettings: ({ params }) => respond((me) => settings.member(me, params.team_nanoid, params.user_nanoid)),
      updateMemberSettings: ({ params, payload }) =>
        respond((me) => settings.updateMember(me, params.team_nanoid, params.user_nanoid, payload))
    })
  })
).pipe(Layer.provide(Layer.mergeAll(Teams.layer, Members.layer, Settings.layer)))
