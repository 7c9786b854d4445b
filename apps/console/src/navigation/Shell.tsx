/**
 * The frame around every page of a team: the navigation (the pages the member may see), the team switcher, who is
 * signed in, and "Sign out". On a phone the navigation folds behind a menu button.
 */
import { type ReactNode, useState } from "react"
import type { TeamItem } from "../api/Types.ts"
import { useSession } from "../session/Session.tsx"
import { Button } from "../ui/Controls.tsx"
import { roleName, shortHex } from "../ui/Format.tsx"
import { Icon } from "../ui/Icons.tsx"
import { consolePages, pagePath } from "./Pages.ts"
import { Link, navigate, useLocation } from "./Router.tsx"
import type { TeamContext } from "./Team.ts"

const TeamSwitch = ({ team, teams }: { readonly team: TeamContext; readonly teams: ReadonlyArray<TeamItem> }) =>
  teams.length < 2 ? (
    <div className="team-switch who">
      <strong>{team.name}</strong>
      <span className="muted small">{roleName(team.role)}</span>
    </div>
  ) : (
    <div className="team-switch field">
      <label htmlFor="team-switch">Team</label>
      <select id="team-switch" value={team.team} onChange={(event) => navigate(pagePath(event.target.value, ""))}>
        {teams.map((item) => (
          <option key={item.nanoid} value={item.nanoid}>
            {item.name} ({roleName(item.role)})
          </option>
        ))}
      </select>
    </div>
  )

const Navigation = ({ team, current }: { readonly team: TeamContext; readonly current: string }) => (
  <nav className="nav" aria-label="Console">
    <ul>
      {consolePages
        .filter((page) => page.visible(team))
        .map((page) => (
          <li key={page.slug}>
            <Link to={pagePath(team.team, page.slug)} aria-current={page.slug === current ? "page" : undefined}>
              <Icon name={page.icon} />
              {page.label}
            </Link>
          </li>
        ))}
    </ul>
  </nav>
)

export const Shell = ({
  team,
  teams,
  current,
  children
}: {
  readonly team: TeamContext
  readonly teams: ReadonlyArray<TeamItem>
  readonly current: string
  readonly children: ReactNode
}) => {
  const { address, signOut } = useSession()
  // The menu is open on the page it was opened on: following one of its links closes it.
  const path = useLocation().segments.join("/")
  const [openOn, setOpenOn] = useState<string | undefined>(undefined)
  const open = openOn === path
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className={`sidebar${open ? " open" : ""}`}>
        <div className="sidebar-head">
          <Link to={pagePath(team.team, "")} className="brand">
            <span className="brand-mark">svc</span>
            <small>Console</small>
          </Link>
          <Button className="menu-button ghost" aria-expanded={open} onClick={() => setOpenOn(open ? undefined : path)}>
            <Icon name="menu" />
            Menu
          </Button>
        </div>
        <TeamSwitch team={team} teams={teams} />
        <Navigation team={team} current={current} />
        <div className="sidebar-foot">
          <div className="who">
            <span className="small muted">Signed in as</span>
            <span className="mono" title={address}>
              {shortHex(address ?? "")}
            </span>
          </div>
          <Button onClick={signOut}>Sign out</Button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  )
}
