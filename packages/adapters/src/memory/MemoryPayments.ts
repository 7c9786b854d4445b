/**
 * Issued typed data, the payments ledger and the event outbox in process memory, sharing one store: for a server
 * without MongoDB (tools, demos, tests). Each operation is synchronous, so it is atomic within the process; nothing is
 * shared between processes. (`IssuedTypedDataStore.layerMemory` of the domain is not reused: the ledger reads and
 * moves the same entries — state, lease, claim token, result — which that layer keeps to itself.)
 */
import {
  AlreadyExecuted,
  type ClaimedTypedData,
  type IssuedTypedData,
  IssuedTypedDataStore,
  TypedDataNotFound
} from "@svc/domain/eip712"
import { type DomainEvent, EventOutbox } from "@svc/domain/event"
import {
  type ExecutionResult,
  executionLeaseMillis,
  type LedgerQuery,
  type Payment,
  PaymentLedger,
  PaymentNotFound
} from "@svc/domain/payment"
import { StaleState } from "@svc/domain/StaleState"
import { isoOf } from "@svc/domain/Timestamp"
import { Context, Effect, Layer, Option } from "effect"

interface IssuedEntry {
  record: IssuedTypedData
  state: "issued" | "executing" | "executed"
  executedAt?: number
  leaseUntil: number
  /** The claim token of the holder while `executing`. */
  leaseOwner?: string
  result?: ExecutionResult
  signature?: string
}

interface StoredPayment {
  payment: Payment
  leaseUntil: number
}

interface StoredEvent {
  event: DomainEvent
  dispatched: boolean
  leaseUntil: number
}

/** A new claim token. */
const claimTokenOf = () => globalThis.crypto.randomUUID()

/** The three services on one in-memory store. */
export const layer = Layer.effectContext(
  Effect.sync(() => {
    const issued = new Map<string, IssuedEntry>()
    const payments = new Map<string, StoredPayment>()
    const events = new Map<string, StoredEvent>()
    const append = (list: ReadonlyArray<DomainEvent>) => {
      for (const event of list) {
        if (!events.has(event.id)) events.set(event.id, { event, dispatched: false, leaseUntil: 0 })
      }
    }
    const recordOf = (entry: IssuedEntry): IssuedTypedData =>
      entry.state === "issued" ? entry.record : { ...entry.record, executedAt: entry.executedAt ?? 0 }
    const find = (salt: string) =>
      Effect.suspend(() => {
        const entry = issued.get(salt)
        return entry === undefined ? Effect.fail(new TypedDataNotFound({ salt })) : Effect.succeed(entry)
      })

    const store = IssuedTypedDataStore.of({
      issue: (record) => Effect.sync(() => void issued.set(record.salt, { record, state: "issued", leaseUntil: 0 })),
      find: (salt) => Effect.map(find(salt), recordOf),
      claim: (salt, now) =>
        Effect.flatMap(find(salt), (entry): Effect.Effect<ClaimedTypedData, AlreadyExecuted> => {
          if (entry.state !== "issued") return Effect.fail(new AlreadyExecuted({ salt }))
          const claimToken = claimTokenOf()
          entry.state = "executing"
          entry.executedAt = now
          entry.leaseUntil = now + executionLeaseMillis
          entry.leaseOwner = claimToken
          return Effect.succeed({ ...entry.record, executedAt: now, claimToken })
        }),
      release: (salt, claimToken) =>
        Effect.sync(() => {
          const entry = issued.get(salt)
          if (entry?.state === "executing" && entry.leaseOwner === claimToken) {
            entry.state = "issued"
            entry.leaseUntil = 0
            delete entry.leaseOwner
          }
        })
    })

    const ledger = PaymentLedger.of({
      outcome: (salt) =>
        Effect.map(find(salt), (entry) =>
          entry.state === "executed" && entry.result !== undefined
            ? { state: "executed" as const, result: entry.result }
            : entry.state === "executing"
              ? { state: "executing" as const, leaseUntil: entry.leaseUntil }
              : { state: "issued" as const }
        ),
      takeOver: (salt, now, leaseUntil) =>
        Effect.sync(() => {
          const entry = issued.get(salt)
          if (entry === undefined || entry.state !== "executing" || entry.leaseUntil >= now) return Option.none()
          entry.leaseUntil = leaseUntil
          entry.leaseOwner = claimTokenOf()
          return Option.some(entry.leaseOwner)
        }),
      recordExecution: ({ salt, claimToken, signature, result, payments: records, events: recorded }) =>
        Effect.sync(() => {
          const entry = issued.get(salt)
          if (entry === undefined || entry.state !== "executing" || entry.leaseOwner !== claimToken) return false
          entry.state = "executed"
          entry.result = result
          entry.signature = signature
          delete entry.leaseOwner
          for (const payment of records) payments.set(payment.nanoid, { payment, leaseUntil: 0 })
          append(recorded)
          return true
        }),
      leaseDueIntent: ({ now, nowMillis, worker: _worker, leaseUntil }) =>
        Effect.sync(() => {
          const due = [...payments.values()]
            .filter(
              (p) =>
                (p.payment.state === "intent" || p.payment.state === "scheduled") &&
                p.payment.pay_at_time <= now &&
                p.leaseUntil < nowMillis
            )
            .sort((a, b) => a.payment.pay_at_time - b.payment.pay_at_time)[0]
          if (due === undefined) return undefined
          due.payment = { ...due.payment, state: "scheduled", updated_at: isoOf(now * 1000) }
          due.leaseUntil = leaseUntil
          return due.payment
        }),
      settle: (id, from, to, patch, recorded) =>
        Effect.suspend((): Effect.Effect<Payment, PaymentNotFound | StaleState> => {
          const stored = payments.get(id)
          if (stored === undefined) return Effect.fail(new PaymentNotFound({ nanoid: id }))
          if (stored.payment.state !== from) {
            return Effect.fail(new StaleState({ resource: "payment", id, expected: from }))
          }
          stored.payment = { ...stored.payment, ...patch, state: to }
          stored.leaseUntil = 0
          append(recorded)
          return Effect.succeed(stored.payment)
        }),
      list: (query: LedgerQuery) =>
        Effect.sync(() =>
          [...payments.values()]
            .map((p) => p.payment)
            .filter(
              (p) =>
                query.states.includes(p.state) &&
                (query.payer === undefined || p.team_nanoid === query.payer) &&
                (query.notPayer === undefined || p.team_nanoid !== query.notPayer) &&
                (query.recipients === undefined ||
                  (p.recipient_nanoid !== undefined && query.recipients.includes(p.recipient_nanoid))) &&
                (query.createdFrom === undefined || p.created_at >= isoOf(query.createdFrom * 1000)) &&
                (query.createdTo === undefined || p.created_at < isoOf((query.createdTo + 1) * 1000))
            )
            .sort((a, b) =>
              a.created_at === b.created_at
                ? b.nanoid.localeCompare(a.nanoid)
                : b.created_at.localeCompare(a.created_at)
            )
        )
    })

    const outbox = EventOutbox.of({
      append: (list) => Effect.sync(() => append(list)),
      claim: ({ now, limit, worker: _worker, leaseMillis }) =>
        Effect.sync(() => {
          const free = [...events.values()]
            .filter((e) => !e.dispatched && e.leaseUntil < now)
            .sort((a, b) => a.event.created - b.event.created)
            .slice(0, limit)
          for (const e of free) e.leaseUntil = now + leaseMillis
          return free.map((e) => e.event)
        }),
      markDispatched: (id) =>
        Effect.sync(() => {
          const stored = events.get(id)
          if (stored !== undefined) stored.dispatched = true
        }),
      findById: (id) => Effect.sync(() => events.get(id)?.event)
    })

    return Context.make(IssuedTypedDataStore, store).pipe(
      Context.add(PaymentLedger, ledger),
      Context.add(EventOutbox, outbox)
    )
  })
)
