/** The console's entry: the query cache, the session, the app. */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query"
import { StrictMode } from "react"
import { createRoot } from "react-dom/client"
import { App } from "./App.tsx"
import { SessionProvider } from "./session/Session.tsx"
import "./styles.css"
import "./components.css"

const queryClient = new QueryClient({
  defaultOptions: {
    // Reads are asked for again when a page is opened; a refusal is shown at once, not retried (it says why).
    queries: { staleTime: 5_000, retry: false, refetchOnWindowFocus: true }
  }
})

const root = document.getElementById("root")
if (root !== null) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <App />
        </SessionProvider>
      </QueryClientProvider>
    </StrictMode>
  )
}
