/**
 * The error responses of the contract: `{success:false, data:<message>, error_code:<CODE>}` (SPEC §7), one schema
 * class per HTTP status so the server encodes each error with its status and the client decodes by status. Codes and
 * statuses come from the domain's catalog (DESIGN §5).
 */
import { type CodedError, ErrorCatalog, type ErrorCode, ErrorCodeSchema } from "@svc/domain/errors"
import { Schema } from "effect"

const fields = {
  success: Schema.Literal(false),
  data: Schema.String,
  error_code: ErrorCodeSchema
}

/** 400: the request's shape or values are invalid. */
export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(fields, {
  httpApiStatus: 400,
  description: "The request is invalid (VALIDATION_ERROR, INVALID_JSON, ...)"
}) {}
/** 401: no valid bearer token, or a refused sign-in. */
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(fields, {
  httpApiStatus: 401,
  description: "Authentication failed (UNAUTHORIZED, JWT_EXPIRED, SIGNATURE_MISMATCH, EXPIRED_NONCE, ...)"
}) {}
/** 403: authenticated, but the caller's role does not allow this. */
export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(fields, {
  httpApiStatus: 403,
  description: "Not allowed (INSUFFICIENT_PERMISSIONS)"
}) {}
/** 404: unknown resource, or a malformed id in the path. */
export class NotFound extends Schema.Error<NotFound>("NotFound")(fields, {
  httpApiStatus: 404,
  description: "Unknown resource or malformed id (TEAM_NOT_FOUND, USER_NOT_FOUND, INVALID_ID, ...)"
}) {}
/** 409: the resource's state does not allow this, or the idempotency key is still in use. */
export class Conflict extends Schema.Error<Conflict>("Conflict")(fields, {
  httpApiStatus: 409,
  description: "State conflict (ALREADY_EXECUTED, ROLE_CONFLICT, IDEMPOTENCY_IN_PROGRESS, ...)"
}) {}
/** 410: expired (typed data, invites). */
export class Gone extends Schema.Error<Gone>("Gone")(fields, {
  httpApiStatus: 410,
  description: "Expired (EXPIRED_TYPED_DATA, INVITE_EXPIRED)"
}) {}
/** 422: the idempotency key was used with another body. */
export class Unprocessable extends Schema.Error<Unprocessable>("Unprocessable")(fields, {
  httpApiStatus: 422,
  description: "Idempotency key reused with a different request (IDEMPOTENCY_KEY_REUSED)"
}) {}
/** 501: the route is in the contract but this server does not serve it yet. */
export class NotImplemented extends Schema.Error<NotImplemented>("NotImplemented")(fields, {
  httpApiStatus: 501,
  description: "Not served by this deployment yet"
}) {}

/** 500: the server failed in a way the caller cannot fix (details in the log, never in the answer). */
export class InternalError extends Schema.Error<InternalError>("InternalError")(fields, {
  httpApiStatus: 500,
  description: "Failed on our side (INTERNAL_ERROR)"
}) {}
/** 503: a dependency (the chain, the database) is unavailable; try again later. */
export class ServiceUnavailable extends Schema.Error<ServiceUnavailable>("ServiceUnavailable")(fields, {
  httpApiStatus: 503,
  description: "A dependency is unavailable (SERVICE_UNAVAILABLE)"
}) {}

/**
 * Every error status an endpoint's handler may fail with, so the server encodes any of them and the typed client
 * decodes any of them; which ones an operation really answers, with their codes, is what `answers` (OperationDocs.ts) documents. The
 * middleware adds 401, 413, 415, 429 and 500 in the same shape.
 */
export const EndpointErrors = [
  BadRequest,
  Unauthorized,
  Forbidden,
  NotFound,
  Conflict,
  Gone,
  Unprocessable,
  NotImplemented,
  InternalError,
  ServiceUnavailable
]

/** Any error response of the contract. */
export type ApiError =
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | Gone
  | Unprocessable
  | NotImplemented
  | InternalError
  | ServiceUnavailable

const byStatus: Record<number, new (props: typeof BadRequest.Encoded) => ApiError> = {
  400: BadRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  410: Gone,
  422: Unprocessable,
  500: InternalError,
  501: NotImplemented,
  503: ServiceUnavailable
}

/**
 * The status an error class of the contract stands for, or undefined for anything else: how a typed client's caller
 * (the CLI, the v1 proxy) reads a declared failure back, with every status `apiError` answers.
 */
export const statusOfApiError = (error: unknown): number | undefined => {
  for (const [status, type] of Object.entries(byStatus)) if (error instanceof type) return Number(status)
  return undefined
}

/** The error response for a catalog code, with the catalog's message unless a more precise one is given. */
export const apiError = (code: ErrorCode, message?: string): ApiError => {
  const entry = ErrorCatalog[code]
  const make = byStatus[entry.status] ?? BadRequest
  return new make({ success: false, data: message ?? entry.message, error_code: code })
}

/**
 * The one translation from the domain to HTTP: a domain error answers its catalog code, with its own message when it
 * has one (else the catalog's).
 */
export const toApiError = (error: CodedError): ApiError => apiError(error.errorCode, error.message || undefined)
