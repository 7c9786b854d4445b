/**
 * The HTTP adapter: the HttpApi contract shared by the server and the typed client.
 */
export { Api } from "./Api.ts"
export { SystemApi } from "./SystemApi.ts"
