import { assert, describe, it } from "@effect/vitest"
import { isAllowed, Permissions } from "./Permission.ts"
import type { Role } from "./Role.ts"
import { isPayable } from "./Role.ts"

describe("permissions", () => {
  it("admins may do everything in their team, but bill it: only those it pays do", () => {
    for (const action of Object.keys(Permissions) as Array<keyof typeof Permissions>) {
      assert.strictEqual(isAllowed("team_admin", action), action !== "invoices.create", action)
    }
  })

  it("payable members act only about themselves, and read the team", () => {
    for (const role of ["team_employee", "team_contractor"] as const satisfies ReadonlyArray<Role>) {
      assert.isTrue(isAllowed(role, "team.read"))
      assert.isFalse(isAllowed(role, "member.summary"))
      assert.isTrue(isAllowed(role, "member.summary", true))
      assert.isFalse(isAllowed(role, "member.settings.update", true))
      assert.isFalse(isAllowed(role, "team.users.list"))
      assert.isFalse(isAllowed(role, "payments.create"))
      assert.isTrue(isAllowed(role, "invoices.create"))
      assert.isFalse(isAllowed(role, "invoices.read"))
      assert.isTrue(isAllowed(role, "invoices.read", true))
      assert.isFalse(isAllowed(role, "invoices.reject"))
      assert.isTrue(isAllowed(role, "payments.receivable"))
    }
  })

  it("viewers read, finance admins also pay, neither administers", () => {
    assert.isTrue(isAllowed("team_viewer", "payments.read"))
    assert.isFalse(isAllowed("team_viewer", "payments.create"))
    assert.isTrue(isAllowed("team_finance_admin", "payments.execute"))
    assert.isFalse(isAllowed("team_finance_admin", "member.remove"))
    assert.isFalse(isAllowed("team_finance_admin", "team.delete"))
  })

  it("only employees and contractors are payable", () => {
    assert.deepStrictEqual(
      (["team_admin", "team_finance_admin", "team_viewer", "team_employee", "team_contractor"] as const).map(isPayable),
      [false, false, false, true, true]
    )
  })
})
