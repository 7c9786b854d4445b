/** Webhook endpoints: records, API schemas, the state machine, delivery rules and ports. */
export * from "./WebhookDelivery.ts"
export * from "./WebhookEndpoint.ts"
export * from "./WebhookMachine.ts"
export * from "./WebhookRepository.ts"
export * from "./WebhookRequests.ts"
export * from "./WebhookSender.ts"
