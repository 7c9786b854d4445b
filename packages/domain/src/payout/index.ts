/**
 * Payout addresses (the API's withdraw accounts) and duplicate accounts (issue 39): the proof, the changes and their
 * reports, the pairs of users sharing an address, their ports and use cases (`PayoutAddresses`, `Duplicates`).
 */
export * from "./DetectDuplicates.ts"
export * from "./DuplicateAccounts.ts"
export * from "./GetPayoutAddress.ts"
export * from "./IssuePayoutProof.ts"
export * from "./PayoutAddress.ts"
export * from "./PayoutAddresses.ts"
export * from "./PayoutAddressStore.ts"
export * from "./PayoutErrors.ts"
export * from "./PayoutEvents.ts"
export * from "./PayoutMail.ts"
export * from "./ReportPayoutChange.ts"
export * from "./SetPayoutAddress.ts"
