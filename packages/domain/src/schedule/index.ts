/**
 * Pay schedules (decision 0110): a standing order signed once and paid each period on chain, its record and machine,
 * its instalments' due times, and the port that keeps it.
 */
export * from "./Instalments.ts"
export * from "./PaySchedule.ts"
export * from "./PayScheduleErrors.ts"
export * from "./PayScheduleRepository.ts"
