/** The types of `parse-prometheus-text-format` (it ships none), as its README describes its output (prom2json's). */
declare module "parse-prometheus-text-format" {
  interface Sample {
    readonly labels?: Readonly<Record<string, string>>
    /** Counters, gauges and untyped samples. */
    readonly value?: string
    /** Histograms and summaries. */
    readonly count?: string
    readonly sum?: string
    readonly buckets?: Readonly<Record<string, string>>
  }
  interface Family {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: ReadonlyArray<Sample>
  }
  /** Parses the text format; throws on a line that is not in it. */
  export default function parsePrometheusTextFormat(text: string): ReadonlyArray<Family>
}
