/**
 * The web console at `/console` (issue 40): the files of its build (`apps/console/dist`), served from the API's own
 * origin so that the console calls the API without CORS. The files are read once, when the server starts: only those
 * files are ever served (no path reaches the disk), and a rebuilt console is served after a restart.
 *
 * Every answer carries a Content-Security-Policy that allows scripts, styles and calls from this origin only (no inline
 * script, no `eval`, Trusted Types required for the DOM's script sinks), refuses every frame (`frame-ancestors 'none'`,
 * and `X-Frame-Options: DENY` for older browsers), and sends no referrer. A path of the single-page app
 * (`/console/te-…/payments`) answers its `index.html`; the hashed assets are cached for a year.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { extname, join, relative, sep } from "node:path"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

/** The console's Content-Security-Policy. Wallet icons (EIP-6963) are `data:` images; nothing else leaves `'self'`. */
export const consoleContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'"
].join("; ")

/** The headers of every console answer. */
export const consoleHeaders = {
  "content-security-policy": consoleContentSecurityPolicy,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()"
} as const

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2"
}

/** One file of the build, as served. */
interface ConsoleFile {
  readonly body: Uint8Array
  readonly contentType: string
  /** Whether its name carries a hash of its content (`assets/…`), so that it may be cached for good. */
  readonly immutable: boolean
}

/** The build's files by their path under `/console/`; empty when `directory` holds no build. */
export const readConsoleFiles = (directory: string): ReadonlyMap<string, ConsoleFile> => {
  const files = new Map<string, ConsoleFile>()
  const walk = (dir: string): void => {
    let entries: Array<string>
    try {
      entries = readdirSync(dir)
    } catch {
      return
    }
    for (const name of entries) {
      if (name.startsWith(".")) continue
      const path = join(dir, name)
      if (statSync(path).isDirectory()) {
        walk(path)
        continue
      }
      const key = relative(directory, path).split(sep).join("/")
      files.set(key, {
        body: readFileSync(path),
        contentType: contentTypes[extname(name)] ?? "application/octet-stream",
        immutable: key.startsWith("assets/")
      })
    }
  }
  walk(directory)
  return files
}

const notBuilt = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc console</title></head>
<body><main><h1>The console is not built</h1><p>Start the server with <code>npm start</code>, which builds it, or build
it with <code>pnpm --filter @svc/console build</code>, then restart the server.</p></main></body></html>`

/** What `/console/<path>` answers from `files`: the file, the app's page for an app path, or 404 for a missing file. */
export const consoleAnswer = (files: ReadonlyMap<string, ConsoleFile>, path: string) => {
  const index = files.get("index.html")
  if (index === undefined) {
    return HttpServerResponse.text(notBuilt, {
      status: 503,
      contentType: "text/html; charset=utf-8",
      headers: { ...consoleHeaders, "cache-control": "no-store" }
    })
  }
  const file = path === "" ? index : files.get(path)
  // A path whose last segment has no extension is a page of the app; a missing file with one is missing.
  const page = file === undefined && !/\.[A-Za-z0-9]+$/.test(path) ? index : file
  if (page === undefined) {
    return HttpServerResponse.text("Not found", {
      status: 404,
      contentType: "text/plain; charset=utf-8",
      headers: { ...consoleHeaders, "cache-control": "no-store" }
    })
  }
  return HttpServerResponse.uint8Array(page.body, {
    status: 200,
    contentType: page.contentType,
    headers: {
      ...consoleHeaders,
      // The page is asked for again each time (it names the current assets); the assets never change.
      "cache-control": page.immutable ? "public, max-age=31536000, immutable" : "no-cache"
    }
  })
}

/** `GET /console` and everything under it, from the build in `directory`; nothing when `directory` is undefined. */
export const ConsoleRoute = (directory: string | undefined) =>
  HttpRouter.use(
    Effect.fnUntraced(function* (router) {
      if (directory === undefined) return
      const files = readConsoleFiles(directory)
      const serve = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        const pathname = new URL(request.url, "http://console").pathname
        return consoleAnswer(files, pathname.replace(/^\/console\/?/, ""))
      })
      // The router's wildcard also serves `/console` itself.
      yield* router.add("GET", "/console/*", serve)
    })
  )
