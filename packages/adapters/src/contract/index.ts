/**
 * The contract suites of the storage ports, one per port, each registered for a storage under test by the adapters'
 * own test files.
 */
import { companyRepositoryContract } from "./CompanyRepository.contract.ts"
import { depositLedgerContract } from "./DepositLedger.contract.ts"
import { eventOutboxContract } from "./EventOutbox.contract.ts"
import { idempotencyStoreContract } from "./IdempotencyStore.contract.ts"
import { inviteRepositoryContract } from "./InviteRepository.contract.ts"
import { invoiceRepositoryContract } from "./InvoiceRepository.contract.ts"
import { issuedTypedDataStoreContract } from "./IssuedRequestStore.contract.ts"
import { mailOutboxContract } from "./MailOutbox.contract.ts"
import { membershipRepositoryContract } from "./MembershipRepository.contract.ts"
import { nonceStoreContract } from "./NonceStore.contract.ts"
import { paymentLedgerContract } from "./PaymentLedger.contract.ts"
import { payoutAddressStoreContract } from "./PayoutAddressStore.contract.ts"
import { payScheduleRepositoryContract } from "./PayScheduleRepository.contract.ts"
import { retentionContract } from "./Retention.contract.ts"
import { settingsRepositoryContract } from "./SettingsRepository.contract.ts"
import type { StorageUnderTest } from "./Storage.ts"
import { teamRepositoryContract } from "./TeamRepository.contract.ts"
import { transactionJournalContract } from "./TransactionJournal.contract.ts"
import { unitOfWorkContract } from "./UnitOfWork.contract.ts"
import { userRepositoryContract } from "./UserRepository.contract.ts"
import { v1IdMapContract } from "./V1IdMap.contract.ts"
import { webhookStorageContract } from "./WebhookStorage.contract.ts"

export type { Storage, StorageUnderTest } from "./Storage.ts"

/** Registers every port's suite for `storage`. */
export const registerStorageContracts = (storage: StorageUnderTest) => {
  companyRepositoryContract(storage)
  teamRepositoryContract(storage)
  userRepositoryContract(storage)
  membershipRepositoryContract(storage)
  settingsRepositoryContract(storage)
  nonceStoreContract(storage)
  idempotencyStoreContract(storage)
  issuedTypedDataStoreContract(storage)
  paymentLedgerContract(storage)
  payScheduleRepositoryContract(storage)
  payoutAddressStoreContract(storage)
  eventOutboxContract(storage)
  inviteRepositoryContract(storage)
  invoiceRepositoryContract(storage)
  mailOutboxContract(storage)
  webhookStorageContract(storage)
  v1IdMapContract(storage)
  transactionJournalContract(storage)
  depositLedgerContract(storage)
  retentionContract(storage)
  unitOfWorkContract(storage)
}
