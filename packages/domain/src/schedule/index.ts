/** Pay schedules: a standing order signed once and paid each period on chain, its instalments' due times. */
export * from "./Instalments.ts"
