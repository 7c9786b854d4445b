/**
 * The team's members (role, whether they can be paid, e-mail), each one's summary and settings
 * (`/members/us-…`), invites by e-mail (employees and contractors, with what to prefill), manager invites granted on
 * chain with the wallet's signature, and the pending invites, which may be resent or revoked.
 */
import { useState } from "react"
import { useUsers } from "../api/Queries.ts"
import { type PageProps, pagePath } from "../navigation/Pages.ts"
import { Link } from "../navigation/Router.tsx"
import { Badge } from "../ui/Badge.tsx"
import { Button, PageHeader } from "../ui/Controls.tsx"
import { nameOf, roleName } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading } from "../ui/Notice.tsx"
import { InviteDialog } from "./InviteDialog.tsx"
import { ManagerInviteDialog } from "./ManagerInviteDialog.tsx"
import { MemberDetail } from "./MemberDetail.tsx"
import { PendingInvites } from "./PendingInvites.tsx"

const MemberList = ({ team }: PageProps) => {
  const users = useUsers(team.team)
  const [dialog, setDialog] = useState<"invite" | "manager" | undefined>(undefined)
  return (
    <>
      <PageHeader
        title="Members"
        description="Who belongs to the team, and who can be paid."
        actions={
          team.may("invites.create") ? (
            <>
              <Button onClick={() => setDialog("manager")}>Invite manager</Button>
              <Button variant="primary" onClick={() => setDialog("invite")}>
                Invite
              </Button>
            </>
          ) : undefined
        }
      />
      <section className="card" aria-label="Members">
        {users.isPending ? <Loading what="members" /> : null}
        {users.isError ? <ErrorNotice error={users.error} /> : null}
        {users.data?.length === 0 ? <Empty title="No members yet" /> : null}
        {users.data === undefined || users.data.length === 0 ? null : (
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Payable</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((user) => (
                <tr key={user.nanoid}>
                  <td data-label="Name" className="primary">
                    <Link to={pagePath(team.team, "members", user.nanoid)}>{nameOf(user)}</Link>
                    {user.nanoid === team.me ? <span className="sub">You</span> : null}
                  </td>
                  <td data-label="E-mail" className="wrap-anywhere">
                    {user.email || <span className="muted">—</span>}
                  </td>
                  <td data-label="Role">{roleName(user.role)}</td>
                  <td data-label="Payable">
                    {user.blocked ? (
                      <Badge tone="bad">Blocked</Badge>
                    ) : user.payable ? (
                      <Badge tone="good">Payable</Badge>
                    ) : (
                      <Badge tone="neutral">Manager</Badge>
                    )}
                    {user.duplicate_of.length > 0 ? (
                      <span className="sub">Shares an address with {user.duplicate_of.join(", ")}</span>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {team.may("invites.read") ? <PendingInvites team={team} /> : null}
      {dialog === "invite" ? <InviteDialog team={team} onClose={() => setDialog(undefined)} /> : null}
      {dialog === "manager" ? <ManagerInviteDialog team={team} onClose={() => setDialog(undefined)} /> : null}
    </>
  )
}

export const MembersPage = (props: PageProps) => {
  const [user] = props.rest
  return user === undefined ? <MemberList {...props} /> : <MemberDetail team={props.team} user={user} />
}
