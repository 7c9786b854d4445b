/**
 * Finite state machines as data: a table of legal transitions, and pure functions over it.
 *
 * Payments, invites, webhook endpoints, issued requests, journaled transactions and deposits each declare their table;
 * anything not in the table is an `IllegalTransition`, so no sequence of triggers can reach a state the table does not
 * allow. Stores write a state as a move from the state they read (`move(from, to)`, checked against the table), and
 * refuse it unless the stored state is still `from`: a regression such as a transaction's `included → sent` outside
 * a reorganisation is impossible, not merely unlikely (decision 0091). `transitionTable` is the table as the docs show
 * it.
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
  /** Whether some trigger moves `from` to `to` (a store's write of `to` over `from` is in the table). */
  readonly allows: (from: S, to: S) => boolean
  /** `to`, when the table moves `from` to it; else `IllegalTransition` (a write outside the table). */
  readonly move: (from: S, to: S) => Effect.Effect<S, IllegalTransition>
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
  const allows = (from: S, to: S) => Object.values(definition.transitions[from] ?? {}).includes(to)
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
    isTerminal: (state) => triggersFrom(state).length === 0,
    allows,
    move: (from, to) =>
      allows(from, to)
        ? Effect.succeed(to)
        : Effect.fail(new IllegalTransition({ machine: definition.name, from, trigger: `become ${to}` }))
  }
}

/**
 * The move `trigger` makes from `from`, as a store writes it (`state = to WHERE state = from`): adapters build their
 * state-changing statements from it when their layer starts, so a write the table does not allow stops the start (and
 * every test) instead of reaching the store.
 */
export const edge = <S extends string, T extends string>(
  machine: StateMachine<S, T>,
  from: S,
  trigger: T
): { readonly from: S; readonly to: S } => {
  const to = machine.next(from, trigger)
  if (to === undefined) throw new IllegalTransition({ machine: machine.name, from, trigger })
  return { from, to }
}

/** The machine's table in Markdown, one row a move (`from`, trigger, `to`), in the table's order: what docs show. */
export const transitionTable = <S extends string, T extends string>(machine: StateMachine<S, T>): string => {
  const rows = machine.states.flatMap((from) =>
    machine.triggers.flatMap((trigger) => {
      const to = machine.next(from, trigger)
      return to === undefined ? [] : [`| \`${from}\` | ${trigger} | \`${to}\` |`]
    })
  )
  const terminal = machine.states.filter((state) => machine.isTerminal(state)).map((state) => `\`${state}\``)
  return [
    "| from | trigger | to |",
    "|---|---|---|",
    ...rows,
    ...(terminal.length === 0 ? [] : ["", `Terminal: ${terminal.join(", ")}.`])
  ].join("\n")
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
