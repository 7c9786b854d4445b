/**
 * The service's icon: a small SVG, inline in the invite page (`<link rel="icon">`, a `data:` URI its CSP allows, so
 * nothing more is fetched) and at `GET /favicon.ico` for every other page a browser opens (`/docs`), which would
 * otherwise ask and get 404.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"

/** An "S" on the dark of the invite page's buttons. */
export const faviconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1b1f24"/>' +
  '<path d="M21 11.5C20 9.9 18.2 9 16 9c-3 0-5 1.5-5 3.8 0 5.2 10 2.6 10 7.6 0 2.3-2.1 3.6-5 3.6-2.4 0-4.3-1-5.3-2.8" ' +
  'fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round"/></svg>'

/** The icon as a `data:` URI, for a page's `<link rel="icon">`. */
export const faviconDataUri = `data:image/svg+xml,${encodeURIComponent(faviconSvg)}`

/** `GET /favicon.ico`: the icon, as SVG (browsers take an icon by its content type, whatever the path says). */
export const FaviconRoute = HttpRouter.add(
  "GET",
  "/favicon.ico",
  Effect.succeed(
    HttpServerResponse.text(faviconSvg, {
      contentType: "image/svg+xml",
      headers: { "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" }
    })
  )
)
