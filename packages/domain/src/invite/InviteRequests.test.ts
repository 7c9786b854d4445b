import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { membershipRoleOf } from "./Invite.ts"
import {
  AnswerInviteRequest,
  CreateInvitesRequest,
  CreateManagerInvitesRequest,
  ExecuteManagerInvitesRequest,
  InvitesQuery
} from "./InviteRequests.ts"

const ok = (schema: Schema.Top, input: unknown) => Schema.decodeUnknownExit(schema as never)(input)._tag === "Success"

const execute = {
  invites: ["in-abcdefghijkl"],
  signer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  typed_data: {
    from: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    to: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
    salt: "7",
    expires: "1795766400",
    data: [{ role: "team_admin", account: "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65" }]
  },
  signature: `0x${"cd".repeat(65)}`
}

describe("invite request schemas (SPEC §4.9, §4.11)", () => {
  it("manager invite execution takes 15-character in- ids, a signer, role grants and a signature", () => {
    assert.isTrue(ok(ExecuteManagerInvitesRequest, execute))
    assert.isFalse(ok(ExecuteManagerInvitesRequest, { ...execute, invites: ["in-short"] }))
    assert.isFalse(ok(ExecuteManagerInvitesRequest, { ...execute, invites: ["te-abcdefghijkl"] }))
    assert.isFalse(ok(ExecuteManagerInvitesRequest, { ...execute, invites: [] }))
    assert.isFalse(ok(ExecuteManagerInvitesRequest, { ...execute, signature: `0x${"0".repeat(130)}` }))
    assert.isFalse(ok(ExecuteManagerInvitesRequest, { ...execute, typed_data: { ...execute.typed_data, data: [] } }))
    for (const role of ["Team Admin", "team-admin", "\ud800", ""]) {
      const data = [{ role, account: "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65" }]
      assert.isFalse(
        ok(ExecuteManagerInvitesRequest, { ...execute, typed_data: { ...execute.typed_data, data } }),
        role
      )
    }
  })

  it("member invites: 1 to 100 e-mails, a member role, anonymous false by default", () => {
    const body = { nanoid: "te-abcdefghijkl", invites: [{ email: "ada@example.com" }], role: "contractor" }
    assert.isFalse(Schema.decodeUnknownSync(CreateInvitesRequest)(body).anonymous)
    assert.isFalse(ok(CreateInvitesRequest, { ...body, role: "team_admin" }))
    assert.isTrue(ok(CreateInvitesRequest, { ...body, role: "team_contractor" }))
    assert.strictEqual(membershipRoleOf("contractor"), "team_contractor")
    assert.strictEqual(membershipRoleOf("team_employee"), "team_employee")
    assert.isTrue(ok(CreateInvitesRequest, { ...body, invites: Array(100).fill({ email: "a@b.co" }) }))
    assert.isFalse(ok(CreateInvitesRequest, { ...body, invites: Array(101).fill({ email: "a@b.co" }) }))
  })

  it("manager invites name an e-mail, a manager role and a wallet, stored lower-cased", () => {
    const wallet = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
    const body = { nanoid: "te-abcdefghijkl", invites: [{ email: "Ann@Example.com", role: "team_viewer", wallet }] }
    const decoded = Schema.decodeUnknownSync(CreateManagerInvitesRequest)(body)
    assert.strictEqual(decoded.invites[0]?.wallet, wallet.toLowerCase())
    assert.strictEqual(decoded.invites[0]?.email, "ann@example.com")
    assert.isFalse(
      ok(CreateManagerInvitesRequest, { ...body, invites: [{ ...body.invites[0], role: "team_employee" }] })
    )
    assert.isFalse(ok(CreateManagerInvitesRequest, { ...body, invites: [{ ...body.invites[0], wallet: "0x12" }] }))
  })

  it("accept and reject take an invite id and a token", () => {
    assert.isTrue(ok(AnswerInviteRequest, { invite_nanoid: "in-abcdefghijkl", token: "ab".repeat(32) }))
    assert.isFalse(ok(AnswerInviteRequest, { invite_nanoid: "in-abcdefghijkl", token: "" }))
    assert.isFalse(ok(AnswerInviteRequest, { invite_nanoid: "te-abcdefghijkl", token: "x" }))
  })

  it("the list is queried by a team (or company) nanoid", () => {
    assert.isTrue(ok(InvitesQuery, { nanoid: "te-abcdefghijkl" }))
    assert.isFalse(ok(InvitesQuery, { nanoid: "us-abcdefghijkl" }))
  })
})
