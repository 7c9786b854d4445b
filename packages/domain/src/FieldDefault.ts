/**
 * Optional request fields with a default, as the spec's "Optional ... default X" reads.
 */
import { Effect, Schema } from "effect"

/** Makes a key optional on the wire, decoding to `value` when it is absent. */
export const withDefault =
  <S extends Schema.Top>(value: S["Encoded"]) =>
  (schema: S) =>
    schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))
