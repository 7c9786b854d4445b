/**
 * The typed data the service issued, kept so execution rebuilds the digest from our record (DESIGN §5) and so a
 * salt executes at most once.
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { Address, Uint256String } from "../Evm.ts"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { TeamId, UserId } from "../Ids.ts"
import type { TypedDataBundle } from "./TypedData.ts"

/** No typed data was issued with this salt. */
export class TypedDataNotFound extends Schema.TaggedError<TypedDataNotFound>()("TypedDataNotFound", {
  salt: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "TYPED_DATA_NOT_FOUND"
  }
}

/** The salt was already executed (a replay, or a second replica). */
export class AlreadyExecuted extends Schema.TaggedError<AlreadyExecuted>()("AlreadyExecuted", {
  salt: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "ALREADY_EXECUTED"
  }
}

/** What was issued, to whom, and what it is for. */
export interface IssuedTypedData {
  readonly salt: Uint256String
  readonly team: TeamId
  readonly issuedTo: UserId
  readonly signer: Address
  readonly bundle: TypedDataBundle
  /** The request body that produced it, to compare with the execution body. */
  readonly request: unknown
  /** Set once executed. */
  readonly executedAt?: number
}

/**
 * Issued typed data by salt. Implementations must make `claim` atomic across replicas: of any number of concurrent
 * claims of one salt, exactly one succeeds; later ones fail with `AlreadyExecuted`.
 */
export class IssuedTypedDataStore extends Context.Service<
  IssuedTypedDataStore,
  {
    readonly issue: (record: IssuedTypedData) => Effect.Effect<void>
    readonly find: (salt: Uint256String) => Effect.Effect<IssuedTypedData, TypedDataNotFound>
    /** Marks the salt executed at `now` (epoch ms), once. */
    readonly claim: (
      salt: Uint256String,
      now: number
    ) => Effect.Effect<IssuedTypedData, TypedDataNotFound | AlreadyExecuted>
    /** Undoes a claim whose execution failed before reaching the chain, so the signer may retry. */
    readonly release: (salt: Uint256String) => Effect.Effect<void>
  }
>()("@svc/domain/eip712/IssuedTypedDataStore") {
  /** In process memory, for tests and single-process tools (not shared between replicas). */
  static readonly layerMemory = Layer.sync(IssuedTypedDataStore, () => {
    const records = new Map<string, IssuedTypedData>()
    const find = (salt: Uint256String) =>
      Effect.suspend(() => {
        const record = records.get(salt)
        return record === undefined ? Effect.fail(new TypedDataNotFound({ salt })) : Effect.succeed(record)
      })
    return IssuedTypedDataStore.of({
      issue: (record) => Effect.sync(() => void records.set(record.salt, record)),
      find,
      claim: (salt, now) =>
        Effect.flatMap(find(salt), (record) => {
          if (record.executedAt !== undefined) return Effect.fail(new AlreadyExecuted({ salt }))
          const claimed = { ...record, executedAt: now }
          records.set(salt, claimed)
          return Effect.succeed(claimed)
        }),
      release: (salt) =>
        Effect.sync(() => {
          const record = records.get(salt)
          if (record !== undefined) {
            const { executedAt: _executedAt, ...released } = record
            records.set(salt, released)
          }
        })
    })
  })
}
