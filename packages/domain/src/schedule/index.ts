/**
 * Pay schedules (decisions 0110, 0111): a standing order signed once and paid each period on chain; its record,
 * machine and port; its use cases (`PaySchedules`), the instalment runner and the cash requirement.
 */
export * from "./CancelSchedule.ts"
export * from "./CashRequirements.ts"
export * from "./ExecuteSchedule.ts"
export * as InstalmentRunner from "./InstalmentRunner.ts"
export * from "./Instalments.ts"
export * from "./PaySchedule.ts"
export * from "./PayScheduleErrors.ts"
export * from "./PayScheduleRepository.ts"
export * from "./PaySchedules.ts"
export * from "./ScheduleEvents.ts"
export * from "./ScheduleRequests.ts"
export * from "./ScheduleView.ts"
