/**
 * What the contract suites run against: every storage port from one adapter, a fresh store per test. Each adapter's
 * test file registers every suite for its storage (`registerStorageContracts`), so both adapters are held to the
 * same behaviour.
 */
import type { NonceStore } from "@svc/domain/auth"
import type { TransactionJournal } from "@svc/domain/chain"
import type { CompanyRepository } from "@svc/domain/company"
import type { DepositLedger } from "@svc/domain/deposit"
import type { IssuedRequestStore } from "@svc/domain/eip712"
import type { EventOutbox } from "@svc/domain/event"
import type { IdempotencyStore } from "@svc/domain/idempotency"
import type { InviteRepository } from "@svc/domain/invite"
import type { InvoiceRepository } from "@svc/domain/invoice"
import type { MailOutbox } from "@svc/domain/mail"
import type { MembershipRepository } from "@svc/domain/membership"
import type { V1IdMap } from "@svc/domain/migration"
import type { PaymentLedger } from "@svc/domain/payment"
import type { DuplicateAccounts, PayoutAddressStore } from "@svc/domain/payout"
import type { RetentionStore } from "@svc/domain/retention"
import type { PayScheduleRepository } from "@svc/domain/schedule"
import type { SettingsRepository, TeamRepository } from "@svc/domain/team"
import type { UnitOfWork } from "@svc/domain/UnitOfWork"
import type { UserRepository } from "@svc/domain/user"
import type { WebhookDeliveryStore, WebhookEndpointRepository } from "@svc/domain/webhook"
import type { Layer } from "effect"

/** Every storage port. */
export type Storage =
  | CompanyRepository
  | DepositLedger
  | TeamRepository
  | UserRepository
  | MembershipRepository
  | SettingsRepository
  | NonceStore
  | IdempotencyStore
  | IssuedRequestStore
  | PaymentLedger
  | PayScheduleRepository
  | PayoutAddressStore
  | DuplicateAccounts
  | EventOutbox
  | InviteRepository
  | InvoiceRepository
  | MailOutbox
  | WebhookEndpointRepository
  | WebhookDeliveryStore
  | UnitOfWork
  | V1IdMap
  | TransactionJournal
  | RetentionStore

/** An adapter under test: its name, and a layer of a fresh, empty store (built once per test). */
export interface StorageUnderTest {
  readonly name: string
  readonly layer: () => Layer.Layer<Storage>
}
