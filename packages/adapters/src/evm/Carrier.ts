/**
 * How one transaction carries several signed requests, each on its own (decisions 0065 and 0082): the forwarder's
 * function that takes them (`executeEach` for any request, `executePacked` for packed immediate payments), how they are
 * encoded for it and its answer read, and the gas such a transaction is given.
 */
import { svcAccountForwarderAbi } from "@svc/contracts"
import { concat, decodeFunctionResult, encodeFunctionData, type Hex, numberToHex } from "viem"

/**
 * A transaction's intrinsic gas: its base and its calldata (4 a zero byte, 16 another), and the calldata's floor since
 * Prague (EIP-7623: 10 a zero byte, 40 another, over the base), which its gas must reach whatever its calls use.
 */
const intrinsicGas = (data: Hex) => {
  let zeros = 0n
  let others = 0n
  for (let at = 2; at < data.length; at += 2) {
    if (data[at] === "0" && data[at + 1] === "0") zeros += 1n
    else others += 1n
  }
  return { standard: 21_000n + 4n * zeros + 16n * others, floor: 21_000n + 10n * zeros + 40n * others }
}

/** A cap for a request that used `gasUsed` in the simulation: a fifth more, and some. */
export const capOf = (gasUsed: bigint) => gasUsed + gasUsed / 5n + 20_000n

/** A request of a batch (its calldata, and its packed form when it has one) and the most gas it may use there. */
export interface CarriedCall {
  readonly data: Hex
  readonly packed?: Hex | undefined
  readonly gas: bigint
}

/**
 * How a transaction carries several requests, each on its own: `executeEach` takes any request's calldata,
 * `executePacked` packed immediate payments. `overheadGas` is what it spends on a request besides the gas the
 * simulation reports for it (the loop, the request's calldata copied for its call, its result in memory and in the
 * answer), measured at 28 and 62 requests and rounded up: 1,420 for `executeEach`, 500 for `executePacked`.
 */
export interface Carrier {
  readonly functionName: "executeEach" | "executePacked"
  readonly encode: (calls: ReadonlyArray<CarriedCall>) => Hex
  /** Its answer: what became of each request (both answer alike). */
  readonly decode: (
    data: Hex
  ) => ReadonlyArray<{ readonly ok: boolean; readonly gasUsed: bigint; readonly reason: Hex }>
  readonly overheadGas: bigint
}

export const eachCarrier: Carrier = {
  functionName: "executeEach",
  encode: (calls) =>
    encodeFunctionData({
      abi: svcAccountForwarderAbi,
      functionName: "executeEach",
      args: [calls.map(({ data, gas }) => ({ data, gas }))]
    }),
  decode: (data) => decodeFunctionResult({ abi: svcAccountForwarderAbi, functionName: "executeEach", data }),
  overheadGas: 1_500n
}

/** The most gas a packed request may be given (its cap takes 3 bytes). */
const packedGasLimit = 0xff_ff_ffn

export const packedCarrier: Carrier = {
  functionName: "executePacked",
  encode: (calls) =>
    encodeFunctionData({
      abi: svcAccountForwarderAbi,
      functionName: "executePacked",
      args: [
        concat(
          calls.flatMap(({ gas, packed }) => [
            numberToHex(gas < packedGasLimit ? gas : packedGasLimit, { size: 3 }),
            packed ?? "0x"
          ])
        )
      ]
    }),
  decode: (data) => decodeFunctionResult({ abi: svcAccountForwarderAbi, functionName: "executePacked", data }),
  overheadGas: 550n
}

/**
 * The gas of a transaction carrying requests that used `gasUsed` in the simulation of that same batch (decision
 * 0065): what they used, the carrier's own work and the intrinsic gas, and a margin rather than the sum of the
 * caps. A block takes a transaction only while its gas fits what the block has left, so a generous gas leaves each
 * block's tail empty. The margin, a sixteenth and 40,000: the chain runs the batch on the state the simulation read
 * (pending) in the same order, so a request costs more there only when a slot it writes is found empty though the
 * simulation saw it written (20,000 gas instead of 2,900: a recipient who emptied their balance meanwhile, a salt
 * word or a recipient first written by a pending transaction of another key mined after this one); and each
 * `delegatecall` leaves a 64th of what is left to the caller. Each request keeps its cap, so one that costs more
 * still executes while the transaction has gas; one that runs short fails alone and is reported (not executed), as
 * do those after it, or the whole transaction reverts: its requests are estimated alone again (`submitRequest`).
 */
export const gasOf = (gasUsed: ReadonlyArray<bigint>, data: Hex, carrier: Carrier | undefined) => {
  const used = gasUsed.reduce((sum, gas) => sum + gas, 0n)
  const { floor, standard } = intrinsicGas(data)
  const overhead = carrier === undefined ? 0n : carrier.overheadGas * BigInt(gasUsed.length)
  const gas = standard + used + overhead + used / 16n + 40_000n
  return gas > floor ? gas : floor
}
