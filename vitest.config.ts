import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["{packages,apps}/*/src/**/*.test.ts", "{packages,apps}/*/test/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["packages/adapters/test/vitest.globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests marked concurrent (the benchmarks' smoke runs, each its own process) run at most three at a time.
    maxConcurrency: 3,
    reporters: ["default"]
  }
})
