/**
 * The contract of `UserRepository`: users by id and by wallet, one user per wallet (any letter case), wallets and
 * e-mails stored lower-cased; a user's e-mail set, and names filled in when it has none, alone or in a unit of work,
 * with it.
 */
import { assert, describe, it } from "@effect/vitest"
import type { WalletAddress } from "@svc/domain/Evm"
import { StaleState } from "@svc/domain/StaleState"
import { UnitOfWork } from "@svc/domain/UnitOfWork"
import { newUser, UserRepository } from "@svc/domain/user"
import { Effect, Exit, Option } from "effect"
import { userId, wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

const upper = (address: string) => `0x${address.slice(2).toUpperCase()}`

/** Registers the suite for `storage`. */
export const userRepositoryContract = (storage: StorageUnderTest) =>
  describe(`UserRepository (${storage.name})`, () => {
    it.live("a wallet belongs to one user; lookups ignore its letter case; wallet and e-mail are lower-cased", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const alice = {
          ...newUser({ nanoid: userId(1), wallet: wallet(0xa), email: "a@x.io", created_at: "t" }),
          // Stored as the domain decodes it, but a caller that skipped decoding still finds it lower-cased.
          wallet: upper(wallet(0xa)) as WalletAddress,
          email: "A@X.io"
        }
        yield* users.insert(alice)
        const again = yield* Effect.flip(
          users.insert({ ...alice, nanoid: userId(2), wallet: wallet(0xa) as WalletAddress })
        )
        assert.strictEqual(again._tag, "WalletTaken")
        assert.strictEqual(again.wallet, wallet(0xa))
        const found = Option.getOrThrow(yield* users.findByWallet(upper(wallet(0xa))))
        assert.deepStrictEqual(found, { ...alice, wallet: wallet(0xa), email: "a@x.io" })
        assert.deepStrictEqual(Option.getOrThrow(yield* users.findById(userId(1))), found)
        assert.isTrue(Option.isNone(yield* users.findById(userId(2))))
        assert.isTrue(Option.isNone(yield* users.findByWallet(wallet(0xb))))
        yield* users.insert(newUser({ nanoid: userId(3), wallet: wallet(0xc), created_at: "t" }))
        assert.deepStrictEqual(
          (yield* users.findByIds([userId(3), userId(1), userId(9)])).map((u) => u.nanoid).sort(),
          [userId(1), userId(3)]
        )
        assert.deepStrictEqual(yield* users.findByIds([]), [])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("of ten concurrent sign-ups of one new wallet exactly one creates the user", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const inserts = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            Effect.exit(users.insert(newUser({ nanoid: userId(10 + i), wallet: wallet(0xd), created_at: "t" })))
          ),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(inserts.filter(Exit.isSuccess).length, 1)
        const winner = Option.getOrThrow(yield* users.findByWallet(wallet(0xd)))
        assert.strictEqual((yield* users.findByIds(Array.from({ length: 10 }, (_, i) => userId(10 + i)))).length, 1)
        assert.isTrue(Option.isSome(yield* users.findById(winner.nanoid)))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("setEmail records a user's e-mail lower-cased; in a unit that fails, nothing of it", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const alice = newUser({ nanoid: userId(1), wallet: wallet(0xa), created_at: "t" })
        yield* users.insert(alice)
        yield* users.insert(newUser({ nanoid: userId(2), wallet: wallet(0xb), email: "b@x.io", created_at: "t" }))
        yield* users.setEmail(userId(1), "A@X.io")
        assert.deepStrictEqual(Option.getOrThrow(yield* users.findById(userId(1))), { ...alice, email: "a@x.io" })
        assert.deepStrictEqual(Option.getOrThrow(yield* users.findByWallet(wallet(0xa))).email, "a@x.io")
        // An unknown user changes nothing; the others keep theirs.
        yield* users.setEmail(userId(9), "c@x.io")
        assert.isTrue(Option.isNone(yield* users.findById(userId(9))))
        assert.strictEqual(Option.getOrThrow(yield* users.findById(userId(2))).email, "b@x.io")
        const inUnit = <A, E, R>(effect: Effect.Effect<A, E, R>) => UnitOfWork.use((unit) => unit.run(effect))
        const lostRace = new StaleState({ resource: "invite", id: "in-1", expected: "pending" })
        const failed = yield* Effect.exit(
          inUnit(Effect.andThen(users.setEmail(userId(2), "d@x.io"), Effect.fail(lostRace)))
        )
        assert.deepStrictEqual(failed, Exit.fail(lostRace))
        assert.strictEqual(Option.getOrThrow(yield* users.findById(userId(2))).email, "b@x.io")
        yield* inUnit(users.setEmail(userId(2), "e@x.io"))
        assert.strictEqual(Option.getOrThrow(yield* users.findById(userId(2))).email, "e@x.io")
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("fillNames records names only for a user without any; in a unit that fails, nothing of it", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const nameless = newUser({ nanoid: userId(1), wallet: wallet(0xa), created_at: "t" })
        yield* users.insert(nameless)
        yield* users.insert(newUser({ nanoid: userId(2), wallet: wallet(0xb), first_name: "Bo", created_at: "t" }))
        yield* users.insert(newUser({ nanoid: userId(3), wallet: wallet(0xc), last_name: "Cy", created_at: "t" }))
        const ada = { first_name: "Ada", last_name: "Lovelace" }
        const inUnit = <A, E, R>(effect: Effect.Effect<A, E, R>) => UnitOfWork.use((unit) => unit.run(effect))
        const lostRace = new StaleState({ resource: "invite", id: "in-1", expected: "pending" })
        const failed = yield* Effect.exit(
          inUnit(Effect.andThen(users.fillNames(userId(1), ada), Effect.fail(lostRace)))
        )
        assert.deepStrictEqual(failed, Exit.fail(lostRace))
        assert.deepStrictEqual(Option.getOrThrow(yield* users.findById(userId(1))), nameless)
        yield* inUnit(users.fillNames(userId(1), ada))
        assert.deepStrictEqual(Option.getOrThrow(yield* users.findById(userId(1))), { ...nameless, ...ada })
        // A name already there stays whole: not replaced, not completed.
        yield* users.fillNames(userId(1), { first_name: "Eve", last_name: "" })
        yield* users.fillNames(userId(2), ada)
        yield* users.fillNames(userId(3), ada)
        yield* users.fillNames(userId(9), ada)
        const names = (yield* users.findByIds([userId(1), userId(2), userId(3)]))
          .map((u) => [u.nanoid, u.first_name, u.last_name])
          .sort()
        assert.deepStrictEqual(names, [
          [userId(1), "Ada", "Lovelace"],
          [userId(2), "Bo", ""],
          [userId(3), "", "Cy"]
        ])
        assert.isTrue(Option.isNone(yield* users.findById(userId(9))))
      }).pipe(Effect.provide(storage.layer()))
    )
  })
