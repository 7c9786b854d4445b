/**
 * The HTTP requests' own metrics: answers counted and timed by method, route template and status (`Metrics.ts`
 * updates them; `Counters.ts` makes the counter's first series at zero).
 */
import { Metric } from "effect"

/** Requests answered, by method, route template and status. */
export const httpRequests = Metric.counter("svc_http_requests_total", {
  description: "HTTP requests answered, by method, route template and status",
  incremental: true
})

/** How long requests took to answer, by method, route template and status. */
export const httpDuration = Metric.histogram("svc_http_request_duration_seconds", {
  description: "Time to answer an HTTP request, by method, route template and status",
  boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
})
