/**
 * A delivery's attempts as `webhook_attempts` keeps them: one document each (so a delivery's document stays small),
 * what the attempt did not get `null`, and the start of the receiver's answer as two fields (its text, and whether it
 * was cut). A document written before bodies were kept has neither field: it kept no body.
 */
import { DeliveryId } from "@svc/domain/Ids"
import type { DeliveryAttempt } from "@svc/domain/webhook"
import { Schema } from "effect"
import type { Document } from "mongodb"
import { recordDecoder } from "./MongoDocuments.ts"

/** An attempt as stored. */
export interface AttemptDocument {
  _id: string
  delivery_nanoid: DeliveryId
  number: number
  at: number
  status_code: number | null
  duration_ms: number
  error: string | null
  response_body: string | null
  response_body_truncated: boolean
}

/** An attempt as `webhook_attempts` keeps it. */
const StoredAttempt = Schema.Struct({
  delivery_nanoid: DeliveryId,
  number: Schema.Number,
  at: Schema.Number,
  status_code: Schema.optional(Schema.NullOr(Schema.Number)),
  duration_ms: Schema.Number,
  error: Schema.optional(Schema.NullOr(Schema.String)),
  response_body: Schema.optional(Schema.NullOr(Schema.String)),
  response_body_truncated: Schema.optional(Schema.Boolean)
})

const storedAttemptOf = recordDecoder("webhook_attempts", StoredAttempt)

/** The attempt a document holds. */
export const attemptOf = (doc: Document): DeliveryAttempt => {
  const attempt = storedAttemptOf(doc)
  return {
    delivery_nanoid: attempt.delivery_nanoid,
    number: attempt.number,
    at: attempt.at,
    status_code: attempt.status_code ?? undefined,
    duration_ms: attempt.duration_ms,
    error: attempt.error ?? undefined,
    ...(attempt.response_body === undefined || attempt.response_body === null
      ? {}
      : { response_body: { text: attempt.response_body, truncated: attempt.response_body_truncated === true } })
  }
}

/** The document an attempt is stored as. */
export const attemptDocumentOf = (a: DeliveryAttempt): AttemptDocument => ({
  _id: `${a.delivery_nanoid}:${a.number}`,
  delivery_nanoid: a.delivery_nanoid,
  number: a.number,
  at: a.at,
  status_code: a.status_code ?? null,
  duration_ms: a.duration_ms,
  error: a.error ?? null,
  response_body: a.response_body?.text ?? null,
  response_body_truncated: a.response_body?.truncated === true
})
