/** Retention: how long what only grows is kept, the port that prunes it, and the worker that does so. */
export * from "./Retention.ts"
export * as RetentionWorker from "./RetentionWorker.ts"
