/**
 * The guide at the top of the OpenAPI document (and so of `/docs`): sign in with SIWE, then sign and execute a
 * payment with EIP-712, each with a worked example a newcomer can paste. Markdown, as OpenAPI descriptions are.
 */

/**
 * The API's description: what it is, the two signatures it asks for, the error shape and the limits; the examples
 * call `base`, the server's public URL.
 */
export const apiGuideFor = (
  base: string
) => `Team payments in USDC, authorised by EIP-712 signatures and settled on an EVM chain.

Every call but sign-in, \`/health\` and \`/ready\` needs \`Authorization: Bearer <JWT>\`. Two signatures are
involved, both by the same wallet: an **EIP-4361 (SIWE) message** to sign in, and **EIP-712 typed data** for each
payment batch or manager invite.

## 1. Sign in with Ethereum

1. \`GET /v2/auth/siwe?wallet=0x…\` answers \`data.siwe\` (the EIP-4361 message, with a \`Nonce:\` line) and
   \`data.nonce\`. The nonce is single-use and lives about 5 minutes.
2. The wallet signs the message as it is (EIP-191 \`personal_sign\`).
3. \`POST /v2/auth/verify\` with \`{message, sig, nonce}\` answers \`data.jwt\`, valid 24 hours. A wallet the
   service does not know yet becomes a new user.
4. Send it as \`Authorization: Bearer <jwt>\`. Here, paste it into the **bearer** box under *Authentication* and
   the *Test Request* buttons send it.

\`\`\`ts
import { privateKeyToAccount } from "viem/accounts"

const base = "${base}"
const key = process.env.PRIVATE_KEY as \`0x\${string}\`
const account = privateKeyToAccount(key)
const json = { "content-type": "application/json" }

// 1. the message to sign
const challenge = await fetch(
  \`\${base}/v2/auth/siwe?wallet=\${account.address}\`
).then((r) => r.json())
const message = challenge.data.siwe

// 2. sign it (EIP-191)
const sig = await account.signMessage({ message })

// 3. exchange it for a JWT
const verified = await fetch(\`\${base}/v2/auth/verify\`, {
  method: "POST",
  headers: json,
  body: JSON.stringify({
    message, sig, nonce: challenge.data.nonce
  })
}).then((r) => r.json())
const auth = {
  ...json,
  authorization: \`Bearer \${verified.data.jwt}\`
}
\`\`\`

## 2. Pay: typed data, sign it (EIP-712), execute it

1. \`POST /v2/payments\` with \`{from: "te-…", to: [{to: "us-…", amount_cents, currency_symbol: "USD",
   invoice_description}], pay_now}\` answers a bundle \`{domain, types, typed_data, primary_type}\`. It expires in
   10 minutes.
2. The wallet signs \`typed_data\` as EIP-712 with \`domain\`, \`types\` and \`primary_type\`, all unchanged.
3. \`PUT /v2/payments\` with the same \`from\`, \`to\` and \`pay_now\`, plus \`signer\` (the wallet),
   \`typed_data\` (as received) and \`signature\`, answers \`data.transaction\` once it is mined.

\`\`\`ts
const order = {
  from: "te-XXXXXXXXXXXX",
  to: [{
    to: "us-XXXXXXXXXXXX",
    amount_cents: 12500,
    currency_symbol: "USD",
    invoice_description: "March"
  }],
  pay_now: true
}

// 1. the typed data to sign
const issued = await fetch(\`\${base}/v2/payments\`, {
  method: "POST",
  headers: auth,
  body: JSON.stringify(order)
}).then((r) => r.json())
const { domain, types, typed_data, primary_type } =
  issued.data

// 2. sign it (EIP-712), unchanged
const signature = await account.signTypedData({
  domain,
  types,
  primaryType: primary_type,
  message: typed_data
})

// 3. execute it
const executed = await fetch(\`\${base}/v2/payments\`, {
  method: "PUT",
  headers: {
    ...auth,
    "idempotency-key": crypto.randomUUID()
  },
  body: JSON.stringify({
    ...order,
    signer: account.address,
    typed_data,
    signature
  })
}).then((r) => r.json())
\`\`\`

A signed request executes once: the same PUT again answers its result, \`202\` with the transaction while it is in
flight, or \`409 EXECUTION_IN_PROGRESS\` while another request executes it and has sent nothing yet (ask again);
\`409 ALREADY_EXECUTED\` means other payments spent its salt. It expires (\`410 EXPIRED_TYPED_DATA\`: ask again), and
must match what was issued field for field (\`400 TYPED_DATA_MISMATCH\`). An \`Idempotency-Key\` header makes a
retried POST, PUT or DELETE answer what the first one did. Manager invites work the same way with
\`POST\`/\`PUT /v2/invites/manager\`; \`pay_now: false\` registers intents paid at \`pay_at_time\`.

## Errors and limits

Every error answers \`{success: false, data: <message>, error_code: <CODE>}\`; each operation below lists the
statuses it can answer and the codes of each. \`429 RATE_LIMITED\` and \`503 SERVICE_UNAVAILABLE\` come with
\`Retry-After\`.

Ids are 15 characters (\`te-\`, \`us-\`, \`wh-\`, \`in-\` and 12 of \`[0-9A-Za-z_-]\`); a malformed id in a path
answers \`404 INVALID_ID\`. Descriptions hold at most 1,000 characters, links 2,048, e-mail addresses 254 and
names 50 to 200 (each field shows its \`maxLength\`); a batch at most 1,000 payments, a request at most 100
invites, a body at most 1 MiB (\`413 PAYLOAD_TOO_LARGE\`). Longer input answers \`400 VALIDATION_ERROR\` and
changes nothing.`

/** The guide as the contract carries it, for a server on its default local address. */
export const apiGuide = apiGuideFor("http://127.0.0.1:3000")
