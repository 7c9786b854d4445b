/**
 * v1 compatibility: the v1 routes, their translation onto v2's requests, the cached id map, and the handler that
 * answers v1 calls through the typed client.
 */
export { cachedIdMap } from "./CachedV1IdMap.ts"
export { InProcessRequest, inProcessHttpClient, type RoutesApp } from "./InProcess.ts"
export { maxV1Body, ok, type V1Answer, v1Error, v1Headers, v1Stats } from "./V1Answer.ts"
export { clientsFor, makeV1Handler, type V1Result } from "./V1Handler.ts"
export type { V1Local } from "./V1Handlers.ts"
export type { TalentSource } from "./V1Ids.ts"
export { type Translation as V1RouteMatch, translate as findV1Route, type V1Route, v1Routes } from "./V1Routes.ts"
export * from "./V1Translation.ts"
