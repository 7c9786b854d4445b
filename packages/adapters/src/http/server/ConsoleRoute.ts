/**
 * The web console at `/console` (issue 40): the files of its build (`apps/console/dist`), served from the API's own
 * origin so that the console calls the API without CORS. The files are read once, when the server starts: only those
 * files are ever served (no path reaches the disk), and a rebuilt console is served after a restart.
 *
 * Every answer carries a Content-Security-Policy that allows scripts, styles and calls from this origin only (no inline
 * script, no `eval`, Trusted Types required for the DOM's script sinks), refuses every frame (`frame-ancestors 'none'`,
 * and `X-Frame-Options: DENY` for older browsers), and sends no referrer. A path of the single-page app
 * (`/console/te-…/payments`) answers its `index.html`; the hashed assets are cached for a year. Text is sent compressed
 * when the browser asks (br or gzip, each file compressed once).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { extname, join, relative, sep } from "node:path"
import { promisify } from "node:util"
import { brotliCompress, constants, gzip } from "node:zlib"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { codingFor } from "./CompressedPages.ts"

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

/** The file `/console/<path>` names: itself, the app's page for a path of the app, or none. */
const fileAt = (files: ReadonlyMap<string, ConsoleFile>, index: ConsoleFile, path: string) => {
  const file = path === "" ? index : files.get(path)
  // A path whose last segment has no extension is a page of the app; a missing file with one is missing.
  return file === undefined && !/\.[A-Za-z0-9]+$/.test(path) ? index : file
}

/** The headers of a file's answer: the page is asked for again each time (it names the current assets); assets never change. */
const fileHeaders = (file: ConsoleFile) => ({
  ...consoleHeaders,
  "cache-control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
  vary: "Accept-Encoding"
})

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
  const page = fileAt(files, index, path)
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
    headers: fileHeaders(page)
  })
}

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/**
 * `consoleAnswer`, its file compressed as the client asks (`Accept-Encoding`: br, else gzip) when it is text of some
 * size: the app's script is about 500 kB, 150 kB compressed. Each file is compressed once, when first asked for.
 */
const compressedAnswer = (
  files: ReadonlyMap<string, ConsoleFile>,
  compressed: Map<string, Promise<Uint8Array>>,
  path: string,
  acceptEncoding: string | undefined
) => {
  const index = files.get("index.html")
  const page = index === undefined ? undefined : fileAt(files, index, path)
  const coding = codingFor(acceptEncoding)
  if (
    page === undefined ||
    coding === undefined ||
    page.body.length < 1024 ||
    !/^(text\/|image\/svg)/.test(page.contentType)
  ) {
    return Effect.succeed(consoleAnswer(files, path))
  }
  const key = `${page === index ? "index.html" : path}:${coding}`
  let body = compressed.get(key)
  if (body === undefined) {
    body = (
      coding === "br"
        ? brotli(page.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } })
        : gzipped(page.body, { level: 9 })
    ).then((bytes) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    compressed.set(key, body)
  }
  return Effect.map(
    Effect.promise(() => body),
    (bytes) =>
      HttpServerResponse.uint8Array(bytes, {
        status: 200,
        contentType: page.contentType,
        headers: { ...fileHeaders(page), "content-encoding": coding }
      })
  )
}

/** `GET /console` and everything under it, from the build in `directory`; nothing when `directory` is undefined. */
export const ConsoleRoute = (directory: string | undefined) =>
  HttpRouter.use(
    Effect.fnUntraced(function* (router) {
      if (directory === undefined) return
      const files = readConsoleFiles(directory)
      const compressed = new Map<string, Promise<Uint8Array>>()
      const serve = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const pathname = new URL(request.url, "http://console").pathname
        return compressedAnswer(
          files,
          compressed,
          pathname.replace(/^\/console\/?/, ""),
          request.headers["accept-encoding"]
        )
      })
      // The router's wildcard also serves `/console` itself.
      yield* router.add("GET", "/console/*", serve)
    })
  )
