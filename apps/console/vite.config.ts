/**
 * The console's build (decision 0100): a single-page app under `/console/`, its scripts and styles in hashed files
 * (the API's Content-Security-Policy allows no inline script or style). `pnpm --filter @svc/console dev` serves it
 * with hot reload and sends the API's paths on to a server on `SVC_URL` (default http://127.0.0.1:3000).
 */
import react from "@vitejs/plugin-react"
import { defineConfig } from "vite"

const api = process.env.SVC_URL ?? "http://127.0.0.1:3000"

export default defineConfig({
  base: "/console/",
  plugins: [react()],
  server: { proxy: { "/v2": api, "/health": api } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // No inline script: the module preload polyfill would be one (every supported browser preloads modules).
    modulePreload: { polyfill: false },
    // One file for the app and the client it bundles (effect, viem): about 170 kB compressed.
    chunkSizeWarningLimit: 1200,
    rolldownOptions: {
      onLog(level, log, handler) {
        // The SIWE parser (apg-js) and the client's webhook verifier (node:crypto) are imported by packages the
        // console bundles but never run in the browser; they are dropped from the bundle, and said to be so here.
        if (log.code === "MODULE_LEVEL_DIRECTIVE" && log.id?.includes("apg-js")) return
        if (/"(node:crypto|buffer)" has been externalized for browser compatibility/.test(log.message)) return
        handler(level, log)
      }
    }
  }
})
