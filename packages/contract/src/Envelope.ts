/**
 * The success envelope (SPEC §1): `{success: true, data}`; the payments query and the invites list answer `{data}`.
 */
import { Schema } from "effect"

/** `{success: true, data: <data>}`. */
export const Envelope = <S extends Schema.Top>(data: S) => Schema.Struct({ success: Schema.Literal(true), data })

/** `{data: <data>}`, for the two routes the spec answers without `success`. */
export const DataOnly = <S extends Schema.Top>(data: S) => Schema.Struct({ data })
