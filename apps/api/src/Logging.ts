/**
 * The one logger configuration of `npm start` (issue 35, item 5; decision 0088). `LOG_FORMAT=json` writes one JSON
 * object per line, for machines; `text` one readable line per entry, for a person at a terminal: time, level, message
 * and its plain fields (`request_id=…`). `text` is the default on a terminal and in embedded mode, `json` otherwise.
 * `LOG_LEVEL` is the least level written (default `info`; a request to `/health`, `/ready` or `/metrics` is `debug`).
 *
 * Whatever the format, a line never carries a secret: the values of the configured secrets (`JWT_SECRET`, relayer
 * keys, `RPC_URL`'s entries, the passwords of `MONGODB_URI` and `SMTP_URL`, …), JSON Web Tokens, bearer tokens,
 * webhook signing secrets and invite tokens in links are replaced by `[redacted …]`. The one exception is embedded
 * mode's mail block, whose link is the point of it (LogMailer).
 */
import { Cause, Config, Effect, Layer, Logger, type LogLevel, Option, Redacted, References } from "effect"

/** `LOG_FORMAT`: `text` on a terminal and in embedded mode (neither `MONGODB_URI` nor `RPC_URL`), else `json`. */
export const logFormat = Effect.gen(function* () {
  const production =
    Option.isSome(yield* Config.option(Config.Redacted("MONGODB_URI"))) ||
    Option.isSome(yield* Config.option(Config.Redacted("RPC_URL")))
  const terminal = process.stdout.isTTY === true
  return yield* Config.Literals(["json", "text"], "LOG_FORMAT").pipe(
    Config.withDefault(terminal || !production ? ("text" as const) : ("json" as const))
  )
})

/** An annotation a mail block carries (LogMailer): its invite link is what the block is for, so it is kept. */
export const mailLinkAnnotation = "mail.link"

/** The configured secrets, by the variable that holds them: each value is replaced by `[redacted NAME]`. */
const configuredSecrets = Effect.gen(function* () {
  const read = (name: string) =>
    Effect.gen(function* () {
      const value = yield* Config.option(Config.Redacted(name))
      return Option.match(value, { onNone: () => undefined, onSome: Redacted.value })
    })
  const secrets: Array<readonly [string, string]> = []
  const add = (name: string, value: string | undefined) => {
    // Short values would redact common words; no secret we accept is that short.
    if (value !== undefined && value.length >= 8) secrets.push([name, value])
  }
  for (const name of ["JWT_SECRET", "WEBHOOK_SECRET_KEY", "METRICS_TOKEN", "OTEL_EXPORTER_OTLP_HEADERS"]) {
    add(name, yield* read(name))
  }
  for (const name of ["RELAYER_PRIVATE_KEYS", "RELAYER_PRIVATE_KEY"]) {
    for (const key of (yield* read(name))?.split(",") ?? []) {
      add(name, key.trim())
      add(name, key.trim().replace(/^0x/i, ""))
    }
  }
  for (const url of (yield* read("RPC_URL"))?.split(",") ?? []) add("RPC_URL", url.trim())
  for (const name of ["MONGODB_URI", "SMTP_URL"]) {
    const uri = yield* read(name)
    const password = uri === undefined ? "" : (URL.parse(uri)?.password ?? "")
    add(name, uri)
    if (password !== "") {
      add(name, password)
      add(name, decodeURIComponent(password))
    }
  }
  // The longest first, so a URL goes before the password inside it.
  return secrets.sort((a, b) => b[1].length - a[1].length)
})

/** Replaces every secret in `text` (`keepLinks`: invite tokens in links stay, for the mail block). */
export const redactorOf =
  (secrets: ReadonlyArray<readonly [string, string]>) =>
  (text: string, keepLinks = false): string => {
    let out = text
    for (const [name, value] of secrets) {
      if (out.includes(value)) out = out.replaceAll(value, `[redacted ${name}]`)
      const escaped = JSON.stringify(value).slice(1, -1)
      if (escaped !== value && out.includes(escaped)) out = out.replaceAll(escaped, `[redacted ${name}]`)
    }
    out = out
      .replace(/eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]+/g, "[redacted JWT]")
      .replace(/\b(bearer\s+)[\w.~+/=-]{8,}/gi, "$1[redacted]")
      .replace(/whsec_[A-Za-z0-9+/=]+/g, "whsec_[redacted]")
    return keepLinks ? out : out.replace(/([?&]token=)[^&\s"'\\]+/g, "$1[redacted]")
  }

const levelNames: Record<LogLevel.LogLevel, string> = {
  All: "ALL",
  Trace: "TRACE",
  Debug: "DEBUG",
  Info: "INFO",
  Warn: "WARN",
  Error: "ERROR",
  Fatal: "FATAL",
  None: "NONE"
}

const levelColours: Partial<Record<LogLevel.LogLevel, string>> = { Warn: "33", Error: "31", Fatal: "31", Debug: "90" }

const twoDigits = (n: number) => String(n).padStart(2, "0")

/** A value as a line shows it: strings as they are, anything else as JSON. */
const shown = (value: unknown) => {
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * One readable line: `12:03:04.567 INFO  message request_id=req_…`. Fields whose names hold a dot (`http.status`,
 * `mail.link`) are for machines and restate the message, so the line leaves them out; a cause follows, indented.
 */
export const textLogger = (redact: (text: string, keepLinks?: boolean) => string, colours: boolean) =>
  Logger.make<unknown, string>(({ message, logLevel, date, fiber, cause }) => {
    const annotations = fiber.getRef(References.CurrentLogAnnotations)
    const parts = Array.isArray(message) ? message : [message]
    const fields = Object.entries(annotations)
      .filter(([key]) => !key.includes("."))
      .map(([key, value]) => `${key}=${shown(value)}`)
    const time = `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, "0")}`
    const name = levelNames[logLevel].padEnd(5)
    const colour = levelColours[logLevel]
    const level = colours && colour !== undefined ? `\u001b[${colour}m${name}\u001b[0m` : name
    const causeText = cause.reasons.length > 0 ? `\n${Cause.pretty(cause).replace(/^/gm, "    ")}` : ""
    const line = `${time} ${level} ${[...parts.map(shown), ...fields].join(" ")}${causeText}`
    return redact(line, mailLinkAnnotation in annotations)
  })

/** One JSON object per line: Effect's structured entry (message, level, timestamp, annotations, spans, cause). */
export const jsonLogger = (redact: (text: string, keepLinks?: boolean) => string) =>
  Logger.map(Logger.formatStructured, (entry) =>
    redact(
      JSON.stringify(entry, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
      mailLinkAnnotation in entry.annotations
    )
  )

const logLevels = {
  all: "All",
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
} as const satisfies Record<string, LogLevel.LogLevel>

/** The logger `npm start` runs with: `LOG_FORMAT`, `LOG_LEVEL`, secrets redacted. */
export const logging = Effect.gen(function* () {
  const format = yield* logFormat
  const level = yield* Config.Literals(Object.keys(logLevels) as Array<keyof typeof logLevels>, "LOG_LEVEL").pipe(
    Config.withDefault("info" as const)
  )
  const redact = redactorOf(yield* configuredSecrets)
  const colours = process.stdout.isTTY === true && process.env.NO_COLOR === undefined
  const logger = format === "json" ? jsonLogger(redact) : textLogger(redact, colours)
  return Layer.merge(
    Logger.layer([Logger.withConsoleLog(logger)]),
    Layer.succeed(References.MinimumLogLevel, logLevels[level])
  )
})
