/**
 * A browser wallet as the client's account (issue 40): any EIP-1193 provider (`window.ethereum`, or one a wallet
 * announced through EIP-6963) signs through viem's wallet client, with `personal_sign` for sign-in and
 * `eth_signTypedData_v4` for payments. The key stays in the wallet; the person approves each signature there.
 */
import { createWalletClient, custom, type EIP1193Provider } from "viem"
import type { ViemAccount } from "./Client.ts"

/** An EIP-1193 provider: what a browser wallet puts in the page. */
export type Eip1193Provider = EIP1193Provider

/**
 * The wallet's account `address` on `provider`, as `createSvcClient` takes an account. Before typed data is signed,
 * the wallet is asked to switch to the chain the typed data names (`wallet_switchEthereumChain`), since wallets sign
 * typed data only for the chain they are on.
 *
 * @example
 * const [address] = await window.ethereum.request({ method: "eth_requestAccounts" })
 * const svc = createSvcClient({ baseUrl: location.origin, account: eip1193Account(window.ethereum, address) })
 */
export const eip1193Account = (provider: Eip1193Provider, address: `0x${string}`): ViemAccount => {
  const wallet = createWalletClient({ account: address, transport: custom(provider) })
  return {
    address,
    signMessage: ({ message }) => wallet.signMessage({ message }),
    signTypedData: async (typedData) => {
      const chainId = Number(typedData.domain.chainId)
      if (Number.isSafeInteger(chainId) && chainId > 0 && (await wallet.getChainId()) !== chainId) {
        await wallet.switchChain({ id: chainId })
      }
      return wallet.signTypedData(typedData as never)
    }
  }
}

/** Asks the wallet for its accounts (the person approves the connection there); answers the first. */
export const requestWalletAddress = async (provider: Eip1193Provider): Promise<`0x${string}`> => {
  const [address] = await createWalletClient({ transport: custom(provider) }).requestAddresses()
  if (address === undefined) throw new Error("the wallet shared no account")
  return address
}
