/** The event catalog, recorded events and webhook envelopes. */
export * from "./EventCatalog.ts"
export * from "./EventEnvelope.ts"
export * from "./EventOutbox.ts"
export * from "./EventPayload.ts"
export * from "./PayrollEventPayload.ts"
