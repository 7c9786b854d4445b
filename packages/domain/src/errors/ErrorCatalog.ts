/**
 * Every error code the API answers with, its HTTP status and its default message (DESIGN §5, SPEC §7).
 *
 * One record keyed by code so that other areas append codes without touching anyone else's lines. Statuses:
 * 400 validation, 401 authentication, 403 not allowed, 404 unknown resource or malformed id in a path, 409 state
 * conflict, 410 expired, 413/415 transport, 422 idempotency-key reuse, 429 rate limit, 5xx ours.
 */
import { Effect, Schema } from "effect"

/** Code -> HTTP status and default message. Keep keys sorted within each group; append new groups at the end. */
export const ErrorCatalog = {
  // Request shape
  VALIDATION_ERROR: { status: 400, message: "The request is invalid" },
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON" },
  INVALID_ID: { status: 404, message: "The identifier is not a valid id of the expected kind" },
  METHOD_NOT_ALLOWED: { status: 405, message: "The method is not allowed on this route" },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is too large" },
  ROUTE_NOT_FOUND: { status: 404, message: "No route matches the request" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The request body must be application/json" },
  UNSUPPORTED_CURRENCY: { status: 400, message: "The currency is not supported" },
  UNSUPPORTED_NETWORK: { status: 400, message: "The network is not supported" },

  // Authentication (SPEC §5)
  EXPIRED_NONCE: { status: 401, message: "The sign-in nonce is unknown, used or expired" },
  INVALID_SIWE_MESSAGE: { status: 400, message: "The sign-in message is not a valid EIP-4361 message" },
  INVALID_SVC_ID: { status: 400, message: "The svcid is invalid" },
  INVALID_WALLET: { status: 400, message: "Wallet address is required and must be a valid address" },
  JWT_EXPIRED: { status: 401, message: "The access token has expired" },
  SIGNATURE_MISMATCH: { status: 401, message: "The signature does not match the wallet" },
  SIWE_EXPIRED: { status: 401, message: "The sign-in message has expired" },
  SIWE_MISMATCH: { status: 401, message: "The sign-in message was not issued for this service" },
  SIWE_NOT_YET_VALID: { status: 401, message: "The sign-in message is not valid yet" },
  UNAUTHORIZED: { status: 401, message: "A valid bearer token is required" },

  // Permissions
  FORBIDDEN: { status: 403, message: "You are not allowed to do this" },
  INSUFFICIENT_PERMISSIONS: { status: 403, message: "Your role does not allow this operation" },

  // Lookups
  COMPANY_NOT_FOUND: { status: 404, message: "Company not found" },
  INVITE_NOT_FOUND: { status: 404, message: "Invite not found" },
  MEMBER_NOT_FOUND: { status: 404, message: "The user is not a member of the team" },
  NOT_FOUND: { status: 404, message: "Resource not found" },
  PAYMENT_NOT_FOUND: { status: 404, message: "Payment not found" },
  PAY_SCHEDULE_NOT_FOUND: { status: 404, message: "Pay schedule not found" },
  TEAM_NOT_FOUND: { status: 404, message: "Team not found" },
  TEAM_ROLE_SETTINGS_NOT_FOUND: { status: 404, message: "Team role settings not found" },
  TYPED_DATA_NOT_FOUND: { status: 404, message: "No typed data was issued with this salt" },
  USER_NOT_FOUND: { status: 404, message: "User not found" },
  WEBHOOK_NOT_FOUND: { status: 404, message: "Webhook endpoint not found" },

  // Signed requests (EIP-712)
  ALREADY_EXECUTED: { status: 409, message: "This signed request has already been executed" },
  EXECUTION_IN_PROGRESS: {
    status: 409,
    message: "This signed request is being executed and its transaction is not sent yet; send it again for its result"
  },
  EXPIRED_TYPED_DATA: { status: 410, message: "The typed data has expired; create it again" },
  INVALID_SIGNATURE: { status: 400, message: "The signature does not match the typed data and signer" },
  MISSING_SIGNATURE: { status: 400, message: "The signer, typed data and signature are required" },
  TYPED_DATA_MISMATCH: { status: 400, message: "The typed data differs from what was issued" },

  // Payments
  INSUFFICIENT_BALANCE: { status: 409, message: "The team's balance does not cover the payments" },
  INVALID_AMOUNT: { status: 400, message: "The amount is outside the allowed range" },
  INVALID_RECIPIENT: { status: 400, message: "The recipient cannot be paid" },
  ISSUED_REQUESTS_LIMIT: {
    status: 409,
    message:
      "The team holds too many issued payment requests that are not executed yet; execute them with PUT /v2/payments or let them expire before creating more"
  },

  // Teams, roles and invites
  INVALID_ADMIN_WALLET: { status: 400, message: "The admin wallet is not a valid address" },
  INVALID_ROLE: { status: 400, message: "The role is not valid here" },
  INVALID_TEAM_NAME: { status: 400, message: "The team name must be 2 to 50 characters" },
  INVITE_ALREADY_ANSWERED: { status: 409, message: "The invite was already accepted or rejected" },
  INVITE_EXPIRED: { status: 410, message: "The invite has expired" },
  INVITE_REVOKED: { status: 410, message: "The invite was revoked" },
  ROLE_CONFLICT: { status: 409, message: "The user already has a conflicting role" },

  // State machines and webhooks
  INVALID_EVENT_TYPE: { status: 400, message: "Unknown event type" },
  INVALID_STATE_TRANSITION: { status: 409, message: "The resource is not in a state that allows this" },
  INVALID_WEBHOOK_URL: { status: 400, message: "The webhook URL is not one this server accepts" },
  WEBHOOK_DISABLED: { status: 409, message: "The webhook endpoint is disabled" },

  // Idempotency, limits and ours
  IDEMPOTENCY_IN_PROGRESS: { status: 409, message: "A request with this idempotency key is in progress" },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: "The idempotency key was used with a different request" },
  INTERNAL_ERROR: { status: 500, message: "Something went wrong on our side" },
  RATE_LIMITED: { status: 429, message: "Too many requests; retry later" },
  SERVICE_UNAVAILABLE: { status: 503, message: "The service is temporarily unavailable" },

  // API server
  HEADERS_TOO_LARGE: { status: 431, message: "The request line or headers are too large" },
  LAST_ADMIN: { status: 409, message: "A team must keep at least one team_admin" },
  TEAM_NOT_EMPTY: { status: 409, message: "The team still holds money or intents waiting to be paid" },
  MALFORMED_REQUEST: { status: 400, message: "The request is not valid HTTP" },
  REQUEST_TIMEOUT: { status: 408, message: "The request was not received in time" },
  NOT_IMPLEMENTED: { status: 501, message: "This operation is not served by this deployment yet" },

  // Invoices (issue 38)
  INVOICE_AMOUNT_MISMATCH: { status: 400, message: "The invoice's amount differs from its time entries" },
  INVOICE_NOT_FOUND: { status: 404, message: "Invoice not found" },
  INVOICE_NOT_PAYABLE: {
    status: 409,
    message: "The invoice cannot be paid: it is paid, canceled, rejected, being paid, or not the team's"
  },
  INVOICE_NUMBER_TAKEN: { status: 409, message: "You already billed this team under this invoice number" },
  // Members: blocks, payout addresses (issue 39)
  MEMBER_BLOCKED: { status: 409, message: "The member is blocked in this team and cannot be paid" },
  PAYOUT_REPORT_INVALID: { status: 404, message: "The report link is unknown, used or expired" }
} as const satisfies Record<string, { readonly status: number; readonly message: string }>

/** An error code of the catalog. */
export type ErrorCode = keyof typeof ErrorCatalog

/** The error codes, for OpenAPI and schema use. */
export const errorCodes = Object.keys(ErrorCatalog) as ReadonlyArray<ErrorCode>

/** Schema of an error code (UPPER_SNAKE, one of the catalog). */
export const ErrorCodeSchema = Schema.Literals(errorCodes as [ErrorCode, ...Array<ErrorCode>])

/** The HTTP status of a code. */
export const statusOf = (code: ErrorCode): number => ErrorCatalog[code].status

/** The error body of every API error: `{success:false, data:<message>, error_code:<CODE>}` (SPEC §7). */
export const ErrorBody = Schema.Struct({
  success: Schema.Literal(false),
  data: Schema.String,
  error_code: ErrorCodeSchema
})
export type ErrorBody = typeof ErrorBody.Type

/** The body for a code, with the catalog's message unless a more precise one is given. */
export const errorBody = (code: ErrorCode, message?: string): ErrorBody => ({
  success: false,
  data: message ?? ErrorCatalog[code].message,
  error_code: code
})

/**
 * A failure the API answers with: every domain error names its catalog code, and its `message` when it says more
 * than the catalog ("" or the catalog's own otherwise). The HTTP adapter translates it in one place.
 */
export interface CodedError {
  readonly _tag: string
  readonly errorCode: ErrorCode
  readonly message: string
}

/** A `message` field that defaults to the catalog's message of `code`, for errors that can say more. */
export const messageField = (code: ErrorCode) =>
  Schema.String.pipe(Schema.withConstructorDefault(Effect.succeed(ErrorCatalog[code].message)))
