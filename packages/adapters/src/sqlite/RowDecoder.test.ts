/**
 * Decoding at the storage edge (docs/decisions/0077): the memoised decoder answers the schema's value, the same
 * frozen value for the same text; a stored row that does not match its schema fails loudly, naming its table and key,
 * through the store that reads it from a real SQLite file.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { MembershipRepository } from "@svc/domain/membership"
import { newUser, User, UserRepository } from "@svc/domain/user"
import { Cause, Context, Effect, Exit, Layer, Option, Schema } from "effect"
import { membership, teamId, userId, wallet } from "../contract/Fixtures.ts"
import { records, StoredRowInvalid } from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"
import * as SqliteStorage from "./SqliteStorage.ts"

const alice = newUser({ nanoid: userId(1), wallet: wallet(0xa), email: "a@x.io", created_at: "t" })

/** A fresh database file with every port, and its connection for raw SQL, removed with the scope. */
const storage = Effect.gen(function* () {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-row-decoder-"))),
    (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
  )
  const database = SqliteDatabase.layer({ filename: join(dir, "svc.db") })
  return yield* Layer.build(Layer.merge(SqliteStorage.ports.pipe(Layer.provide(database)), database))
})

/** The defect `effect` died with. */
const defectOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    assert.isTrue(Exit.isFailure(exit))
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    assert.instanceOf(defect, StoredRowInvalid)
    return defect instanceof Error ? defect.message : ""
  })

describe("RowDecoder", () => {
  it("the memo answers the schema's value, one frozen value per text", () => {
    const decode = records("users", User)
    const text = JSON.stringify(alice)
    const first = decode(text)
    assert.deepStrictEqual(first, Schema.decodeUnknownSync(User)(JSON.parse(text)))
    assert.strictEqual(decode(text), first)
    assert.strictEqual(decode(JSON.stringify(alice)), first)
    assert.isTrue(Object.isFrozen(first))
    assert.isTrue(Object.isFrozen(first.address))
    assert.isTrue(Object.isFrozen(first.certifications))
    assert.isFalse(Reflect.set(first, "email", "b@x.io"))
    assert.throws(() => Object.assign(first.social, { x: "changed" }), TypeError)
    assert.strictEqual(decode(text).email, "a@x.io")
    assert.strictEqual(decode(text).social.x, "")
    // Another text is another value, and a full memo starts again without losing answers.
    const small = records("users", User, 2)
    const texts = [1, 2, 3].map((n) => JSON.stringify({ ...alice, nanoid: userId(n) }))
    const values = texts.map((t) => small(t))
    assert.deepStrictEqual(
      texts.map((t) => small(t).nanoid),
      values.map((v) => v.nanoid)
    )
  })

  it("text that is not JSON, or JSON of another shape, is a StoredRowInvalid naming table and key", () => {
    const decode = records("users", User)
    assert.throws(() => decode("{not json", "us-1"), StoredRowInvalid, /A row of users \(us-1\)/)
    assert.throws(
      () => decode(JSON.stringify({ ...alice, wallet: "nope" })),
      StoredRowInvalid,
      /users \(us-0+1\).*wallet/
    )
    assert.throws(() => decode(42, "us-2"), StoredRowInvalid, /users \(us-2\)/)
  })

  it.live("a corrupt row written with raw SQL fails the store that reads it, naming table and key", () =>
    Effect.gen(function* () {
      const context = yield* storage
      const { connection } = Context.get(context, SqliteDatabase)
      const users = Context.get(context, UserRepository)
      const memberships = Context.get(context, MembershipRepository)
      yield* users.insert(alice)
      assert.deepStrictEqual(Option.getOrThrow(yield* users.findById(userId(1))), alice)
      connection
        .prepare("UPDATE users SET record = json_set(record, '$.wallet', 'not-a-wallet') WHERE nanoid = ?")
        .run(userId(1))
      const message = yield* defectOf(users.findById(userId(1)))
      assert.match(message, /A row of users \(us-0+1\) does not match its schema/)
      assert.match(message, /wallet/)
      connection.prepare("UPDATE users SET record = 'not json' WHERE nanoid = ?").run(userId(1))
      assert.match(yield* defectOf(users.findByIds([userId(1)])), /A row of users/)
      // In a list, the failing row is named by its record's id.
      yield* memberships.insert(membership(1, teamId(1), userId(1)))
      yield* memberships.insert(membership(2, teamId(1), userId(2)))
      connection
        .prepare("UPDATE memberships SET record = json_remove(record, '$.role') WHERE nanoid = ?")
        .run("re-000000000002")
      const listed = yield* defectOf(memberships.listTeam(teamId(1), { offset: 0, limit: undefined }))
      assert.match(listed, /A row of memberships \(re-0+2\) does not match its schema: Missing key at \["role"\]/)
    }).pipe(Effect.scoped)
  )
})
