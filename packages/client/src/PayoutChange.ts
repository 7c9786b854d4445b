/**
 * `payoutAddresses.change` (decision 0108): the proof the API issues for an address, checked to be this wallet's for
 * that address (else it throws, and nothing is signed), signed by the address and by this wallet, then set.
 */
import type { SvcAccount } from "./Client.ts"
import type { SvcOperations, SvcResult } from "./Operations.ts"
import { SvcError } from "./SvcError.ts"

/** The proof the API issued (`payoutAddresses.issueProof`). */
export type PayoutTypedData = SvcResult<"payoutAddresses", "issueProof">["data"]

/** What `payoutAddresses.change` takes: the address to be paid at, and what signs for it. */
export interface PayoutChangeRequest {
  readonly address: string
  /** The key or wallet of `address` (a viem account or an ethers signer; a contract wallet's signer for ERC-1271). */
  readonly addressSigner: SvcAccount
}

/** What signs the proof: its address, and the typed data. */
interface ProofSigner {
  readonly address: () => Promise<`0x${string}`>
  readonly signTypedData: (bundle: PayoutTypedData) => Promise<string>
}

/** Issues, checks, signs twice and sets; answers the caller's payout address as it now is. */
export const changePayout = async (
  operations: SvcOperations,
  wallet: ProofSigner,
  address: Pick<ProofSigner, "signTypedData">,
  request: PayoutChangeRequest
): Promise<SvcResult<"payoutAddresses", "set">["data"]> => {
  const issued = await operations.payoutAddresses.issueProof({ payload: { address: request.address } })
  const bundle = issued.data
  if (
    bundle.typed_data.from.toLowerCase() !== (await wallet.address()) ||
    bundle.typed_data.data.payoutAddress.toLowerCase() !== request.address.toLowerCase()
  ) {
    throw new SvcError("UNEXPECTED_RESPONSE", "the proof the API issued is not for this wallet and address")
  }
  const set = await operations.payoutAddresses.set({
    payload: {
      address: request.address,
      typed_data: bundle.typed_data,
      address_signature: await address.signTypedData(bundle),
      wallet_signature: await wallet.signTypedData(bundle)
    }
  })
  return set.data
}
