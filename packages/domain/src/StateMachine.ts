/**
 * Finite state machines as data: a table of legal transitions, and pure functions over it.
 *
 * Payments, invites and webhook endpoints each declare their table; anything not in the table is an
 * `IllegalTransition`, so no sequence of triggers can reach a state the table does not allow.
 */
import { Effect, Schema } from "effect"
import type { ErrorCode } from "./errors/ErrorCatalog.ts"

/** A trigger that the current state does not accept. */
export class IllegalTransition extends Schema.TaggedError<IllegalTransition>()("IllegalTransition", {
  machine: Schema.String,
  from: Schema.String,
  trigger: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
  override get message(): string {
    return `A ${this.machine} in state "${this.from}" cannot ${this.trigger}`
  }
}

/** The table of a machine: for each state, the triggers it accepts and the state each leads to. */
export interface StateMachineDefinition<S extends string, T extends string> {
  readonly name: string
  readonly states: readonly [S, ...Array<S>]
  readonly triggers: readonly [T, ...Array<T>]
  readonly transitions: { readonly [K in S]: { readonly [U in T]?: S } }
}

/** A machine: its table, schemas of its states and triggers, and the pure functions over the table. */
export interface StateMachine<S extends string, T extends string> extends StateMachineDefinition<S, T> {
  readonly State: Schema.Literals<readonly [S, ...Array<S>]>
  readonly Trigger: Schema.Literals<readonly [T, ...Array<T>]>
  /** The next state, or `undefined` when the trigger is illegal in `state`. */
  readonly next: (state: S, trigger: T) => S | undefined
  /** The next state, or `IllegalTransition`. */
  readonly transition: (state: S, trigger: T) => Effect.Effect<S, IllegalTransition>
  /** Applies the triggers in order; fails at the first illegal one. */
  readonly run: (state: S, triggers: Iterable<T>) => Effect.Effect<S, IllegalTransition>
  readonly can: (state: S, trigger: T) => boolean
  /** The triggers `state` accepts. */
  readonly triggersFrom: (state: S) => ReadonlyArray<T>
  /** A state that accepts no trigger. */
  readonly isTerminal: (state: S) => boolean
}

/** Builds a machine from its table. */
export const makeStateMachine = <const S extends string, const T extends string>(
  definition: StateMachineDefinition<S, T>
): StateMachine<S, T> => {
  const next = (state: S, trigger: T): S | undefined => definition.transitions[state]?.[trigger]
  const transition = (state: S, trigger: T): Effect.Effect<S, IllegalTransition> => {
    const to = next(state, trigger)
    return to === undefined
      ? Effect.fail(new IllegalTransition({ machine: definition.name, from: state, trigger }))
      : Effect.succeed(to)
  }
  const triggersFrom = (state: S) => definition.triggers.filter((trigger) => next(state, trigger) !== undefined)
  return {
    ...definition,
    State: Schema.Literals(definition.states),
    Trigger: Schema.Literals(definition.triggers),
    next,
    transition,
    run: (state, triggers) =>
      Effect.suspend(() => {
        let current: Effect.Effect<S, IllegalTransition> = Effect.succeed(state)
        for (const trigger of triggers) current = Effect.flatMap(current, (s) => transition(s, trigger))
        return current
      }),
    can: (state, trigger) => next(state, trigger) !== undefined,
    triggersFrom,
    isTerminal: (state) => triggersFrom(state).length === 0
  }
}

/** The states reachable from `from` by legal transitions (including `from`). */
export const reachableStates = <S extends string, T extends string>(machine: StateMachine<S, T>, from: S): Set<S> => {
  const seen = new Set<S>([from])
  const queue: Array<S> = [from]
  for (let state = queue.shift(); state !== undefined; state = queue.shift()) {
    for (const trigger of machine.triggers) {
      const to = machine.next(state, trigger)
      if (to !== undefined && !seen.has(to)) {
        seen.add(to)
        queue.push(to)
      }
    }
  }
  return seen
}
