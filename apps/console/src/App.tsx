/**
 * The console: the sign-in page until a wallet has signed in, then the team in the URL (the first of the member's
 * teams when none is named) and the page its path names, if the member may see it.
 */
import { useEffect } from "react"
import { useTeams } from "./api/Queries.ts"
import { consolePages, pagePath } from "./navigation/Pages.ts"
import { navigate, useLocation } from "./navigation/Router.tsx"
import { Shell } from "./navigation/Shell.tsx"
import { teamContext } from "./navigation/Team.ts"
import { SignInPage } from "./pages/SignIn.tsx"
import { useSession } from "./session/Session.tsx"
import { Empty, ErrorNotice, Loading } from "./ui/Notice.tsx"

const Centered = ({ children }: { readonly children: React.ReactNode }) => (
  <main className="signin" id="main">
    <div className="card">{children}</div>
  </main>
)

const Console = () => {
  const { user } = useSession()
  const teams = useTeams()
  const { segments } = useLocation()
  const [teamId, slug = "", ...rest] = segments
  const first = teams.data?.[0]
  useEffect(() => {
    if (teamId === undefined && first !== undefined) navigate(pagePath(first.nanoid, ""), { replace: true })
  }, [teamId, first])
  const team = teams.data?.find((item) => item.nanoid === teamId)
  const page = consolePages.find((candidate) => candidate.slug === slug)
  useEffect(() => {
    document.title = [page?.label, team?.name, "svc console"].filter(Boolean).join(" · ")
  }, [page, team])

  if (teams.isPending) {
    return (
      <main className="signin" id="main">
        <Loading what="your teams" />
      </main>
    )
  }
  if (teams.isError)
    return <Centered>{<ErrorNotice error={teams.error} title="Your teams could not be loaded" />}</Centered>
  if (teams.data.length === 0) {
    return (
      <Centered>
        <Empty title="You are not a member of a team yet">
          Accept an invite from your team's admin (the link in its e-mail), then come back here.
        </Empty>
      </Centered>
    )
  }
  if (team === undefined) {
    return (
      <Centered>
        <Empty
          title="This team is not one of yours"
          action={<a href={`/console${pagePath(first?.nanoid ?? "", "")}`}>Go to {first?.name}</a>}
        />
      </Centered>
    )
  }
  const context = teamContext(team, user)
  return (
    <Shell team={context} teams={teams.data} current={page?.slug ?? ""}>
      {page === undefined ? (
        <Empty title="There is no such page" />
      ) : page.visible(context) ? (
        <page.Component team={context} rest={rest} />
      ) : (
        <Empty title="Your role does not open this page">
          As {context.role.replace(/^team_/, "").replace(/_/g, " ")} of {context.name} you see the pages in the menu.
        </Empty>
      )}
    </Shell>
  )
}

export const App = () => {
  const { client } = useSession()
  return client === undefined ? <SignInPage /> : <Console />
}
