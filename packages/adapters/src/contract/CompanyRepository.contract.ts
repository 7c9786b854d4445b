/**
 * The contract of `CompanyRepository`: companies by id, an id inserted once.
 */
import { assert, describe, it } from "@effect/vitest"
import { CompanyRepository } from "@svc/domain/company"
import { Effect, Exit, Option } from "effect"
import { company, companyId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** Registers the suite for `storage`. */
export const companyRepositoryContract = (storage: StorageUnderTest) =>
  describe(`CompanyRepository (${storage.name})`, () => {
    it.live("a company is found by its id as inserted; another id finds none; an id is inserted once", () =>
      Effect.gen(function* () {
        const companies = yield* CompanyRepository
        yield* companies.insert(company(1))
        assert.deepStrictEqual(Option.getOrThrow(yield* companies.findById(companyId(1))), company(1))
        assert.isTrue(Option.isNone(yield* companies.findById(companyId(2))))
        const again = yield* Effect.exit(companies.insert({ ...company(1), name: "Other" }))
        assert.isTrue(Exit.hasDies(again))
        assert.strictEqual(Option.getOrThrow(yield* companies.findById(companyId(1))).name, "Company 1")
      }).pipe(Effect.provide(storage.layer()))
    )
  })
