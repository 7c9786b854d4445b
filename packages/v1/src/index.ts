/**
 * v1 compatibility (DESIGN §5b): the v1 routes, their translation onto v2's requests, the cached id map, and the
 * handler that answers v1 calls through the typed client.
 */
export { cachedIdMap } from "./CachedV1IdMap.ts"
export { InProcessRequest, inProcessHttpClient, type RoutesApp } from "./InProcess.ts"
export * from "./V1Handler.ts"
export { type Translation as V1RouteMatch, translate as findV1Route, type V1Route, v1Routes } from "./V1Routes.ts"
export * from "./V1Translation.ts"
