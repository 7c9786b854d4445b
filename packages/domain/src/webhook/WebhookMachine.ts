/**
 * A webhook endpoint is active (receives deliveries) or disabled (receives none) (SPEC §2.1 `is_active`).
 */
import { makeStateMachine } from "../StateMachine.ts"

/**
 * The webhook endpoint machine (DESIGN §5).
 *
 * - `disable`: its owner disabled it.
 * - `gone`: the receiver answered a delivery with HTTP 410.
 * - `failing`: every delivery failed for 5 days.
 * - `enable`: its owner enabled it again.
 */
export const WebhookMachine = makeStateMachine({
  name: "webhook endpoint",
  states: ["active", "disabled"],
  triggers: ["disable", "gone", "failing", "enable"],
  transitions: {
    active: { disable: "disabled", gone: "disabled", failing: "disabled" },
    disabled: { enable: "active" }
  }
})

/** A webhook endpoint's state. */
export type WebhookState = typeof WebhookMachine.State.Type
/** What moves a webhook endpoint. */
export type WebhookTrigger = typeof WebhookMachine.Trigger.Type

/** `is_active` of the resource for a state, and back. */
export const isActive = (state: WebhookState): boolean => state === "active"
/** The state for `is_active`. */
export const webhookStateOf = (isActive: boolean): WebhookState => (isActive ? "active" : "disabled")
