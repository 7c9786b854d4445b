/**
 * What keeps the chain's node running, when this process runs one (embedded mode's anvil): `GET /ready` reports the
 * chain down while it restarts the node, with what it is doing (docs/decisions/0043).
 */
import { Context, type Effect } from "effect"

/** The supervisor of this process's own node. */
export class ChainSupervision extends Context.Service<
  ChainSupervision,
  {
    /** `undefined` while the node runs; else what the supervisor is doing, as a sentence (no secrets). */
    readonly status: Effect.Effect<string | undefined>
  }
>()("@svc/domain/chain/ChainSupervision") {}
