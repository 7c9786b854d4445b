/**
 * The SQLite schema, as the list of migrations that build it. A database's `PRAGMA user_version` is the last one
 * applied; `SqliteDatabase` applies the rest at open, each in its own transaction. Append new migrations at the end
 * with the next version; never edit one that has shipped.
 *
 * Records are stored whole as JSON (`record`), beside the columns that queries filter and sort on; leased tables
 * carry `lease_token` and `lease_until` (`Leases.ts`; the `lease_holder` some still have is no longer written).
 */

import { firstSchema } from "./FirstSchema.ts"

/** One step of the schema. */
export interface Migration {
  readonly version: number
  readonly sql: string
}

/** Every migration, oldest first. */
export const migrations: ReadonlyArray<Migration> = [
  { version: 1, sql: firstSchema },
  {
    // Webhooks (issue 10): per-team event sequence numbers, endpoints, deliveries and their attempts.
    version: 2,
    sql: `
      CREATE TABLE team_event_sequences (
        team_nanoid TEXT PRIMARY KEY,
        last INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE webhook_endpoints (
        nanoid TEXT PRIMARY KEY,
        team_nanoid TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at TEXT NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX webhook_endpoints_by_team ON webhook_endpoints (team_nanoid, created_at, nanoid);

      CREATE TABLE webhook_deliveries (
        nanoid TEXT PRIMARY KEY,
        webhook_nanoid TEXT NOT NULL,
        team_nanoid TEXT NOT NULL,
        event_id TEXT NOT NULL,
        event TEXT NOT NULL,
        version INTEGER,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        first_attempt_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        lease_holder TEXT,
        lease_until INTEGER NOT NULL DEFAULT 0,
        UNIQUE (event_id, webhook_nanoid)
      ) STRICT;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
      CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_nanoid, created_at, nanoid);

      CREATE TABLE webhook_attempts (
        delivery_nanoid TEXT NOT NULL,
        number INTEGER NOT NULL,
        at INTEGER NOT NULL,
        status_code INTEGER,
        duration_ms INTEGER NOT NULL,
        error TEXT,
        PRIMARY KEY (delivery_nanoid, number)
      ) STRICT;
    `
  },
  {
    // Invites (decision 0027): the token only as its hash; mails wait in an outbox leased by the mail worker, whose
    // lease_until also says when a mail that failed is due again.
    version: 3,
    sql: `
      CREATE TABLE invites (
        nanoid TEXT PRIMARY KEY,
        team_nanoid TEXT NOT NULL,
        state TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX invites_by_team ON invites (team_nanoid, state, created_at);
      CREATE INDEX invites_by_expiry ON invites (state, expires_at);

      CREATE TABLE mail_outbox (
        id TEXT PRIMARY KEY,
        created INTEGER NOT NULL,
        state TEXT NOT NULL DEFAULT 'queued',
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        record TEXT NOT NULL,
        lease_holder TEXT,
        lease_until INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX mail_outbox_due ON mail_outbox (state, lease_until, created);
    `
  },
  {
    // The v1 id map of the migration tool (V1IdMap): unique both ways; `v1_number` orders the numbered kinds.
    version: 4,
    sql: `
      CREATE TABLE v1_ids (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        v1 TEXT NOT NULL,
        v1_number INTEGER,
        nanoid TEXT NOT NULL,
        UNIQUE (kind, v1),
        UNIQUE (kind, nanoid)
      ) STRICT;
      CREATE INDEX v1_ids_by_number ON v1_ids (kind, v1_number);
    `
  },
  {
    // Issued requests (issue 14): their expiry and stored size beside the record, so a team's budget of unexecuted
    // requests is one indexed sum and the sweep finds expired ones without reading records.
    version: 5,
    sql: `
      ALTER TABLE issued_requests ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE issued_requests ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
      UPDATE issued_requests SET
        expires_at = CAST(json_extract(record, '$.bundle.typed_data.expires') AS INTEGER),
        bytes = length(CAST(record AS BLOB));
      CREATE INDEX issued_requests_unexecuted ON issued_requests (team_nanoid, state, expires_at);
      CREATE INDEX issued_requests_by_expiry ON issued_requests (state, expires_at);
    `
  },
  {
    // The transaction journal (issue 24, DESIGN §6): every signed transaction before it is broadcast. The columns
    // the monitor and the nonce allocation select on; the rest (calldata, fees, signed bytes) in `record`.
    version: 6,
    sql: `
      CREATE TABLE chain_transactions (
        hash TEXT PRIMARY KEY,
        chain_id INTEGER NOT NULL,
        relayer TEXT NOT NULL,
        nonce INTEGER NOT NULL,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        block_number INTEGER,
        block_hash TEXT,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX chain_transactions_by_nonce ON chain_transactions (chain_id, relayer, nonce, created_at);
      CREATE INDEX chain_transactions_by_status ON chain_transactions (chain_id, relayer, status, nonce);
      CREATE INDEX chain_transactions_by_block ON chain_transactions (chain_id, relayer, block_number);
    `
  },
  {
    // Relayer keys shared by several processes (issue 24, decision 0060): who sends with a key, and who follows its
    // transactions, one lease row each. And the transaction an executing request has in flight (decision 0061).
    version: 7,
    sql: `
      ALTER TABLE issued_requests ADD COLUMN in_flight TEXT;
      CREATE TABLE relayer_leases (
        chain_id INTEGER NOT NULL,
        relayer TEXT NOT NULL,
        lease TEXT NOT NULL,
        lease_holder TEXT NOT NULL,
        lease_until INTEGER NOT NULL,
        PRIMARY KEY (chain_id, relayer, lease)
      ) STRICT;
    `
  },
  {
    // Deposits (issue 25, decision 0064): the follower's cursor and lease, what it read, and teams by account.
    version: 8,
    sql: `
      CREATE TABLE chain_followers (
        name TEXT PRIMARY KEY,
        block INTEGER,
        hash TEXT,
        lease_holder TEXT,
        lease_until INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE TABLE deposits (
        nanoid TEXT PRIMARY KEY,
        team_nanoid TEXT NOT NULL,
        state TEXT NOT NULL,
        block_number INTEGER NOT NULL,
        log_index INTEGER NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX deposits_by_team ON deposits (team_nanoid, block_number, log_index);
      CREATE INDEX deposits_unsettled ON deposits (state, block_number);
      CREATE INDEX teams_by_account ON teams (lower(json_extract(record, '$.svc_account')));
    `
  },
  {
    // Retention (issue 22): the pruning worker's lease, and what it finds done records by.
    version: 9,
    sql: `
      CREATE TABLE worker_leases (
        name TEXT PRIMARY KEY,
        lease_holder TEXT NOT NULL,
        lease_until INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (status, updated_at);
      CREATE INDEX mail_outbox_by_age ON mail_outbox (state, created);
      CREATE INDEX chain_transactions_by_age ON chain_transactions (status, updated_at);
    `
  },
  {
    // Fencing tokens (issue 36, decision 0090): every leased row counts its takings, and every write under a lease
    // names the count it was taken at. The lease-only tables are made again without their holder names (a lease a
    // process of an older version held lapses with them). A membership whose removal began is found by its mark
    // (decision 0094).
    version: 10,
    sql: `
      ALTER TABLE idempotency_keys ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE issued_requests ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE payments ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE event_outbox ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_deliveries ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE mail_outbox ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE chain_followers ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
      DROP TABLE relayer_leases;
      CREATE TABLE relayer_leases (
        chain_id INTEGER NOT NULL,
        relayer TEXT NOT NULL,
        lease TEXT NOT NULL,
        lease_token INTEGER NOT NULL,
        lease_until INTEGER NOT NULL,
        PRIMARY KEY (chain_id, relayer, lease)
      ) STRICT;
      DROP TABLE worker_leases;
      CREATE TABLE worker_leases (
        name TEXT PRIMARY KEY,
        lease_token INTEGER NOT NULL,
        lease_until INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX memberships_removing ON memberships (json_extract(record, '$.removal_since'))
        WHERE json_extract(record, '$.removal_since') IS NOT NULL;
      `
  },
  {
    // Response bodies in the delivery log (issue 40, decision 0115): the start of each attempt's answer as text and
    // whether it was cut. Attempts made before keep no body (NULL).
    version: 11,
    sql: `
      ALTER TABLE webhook_attempts ADD COLUMN response_body TEXT;
      ALTER TABLE webhook_attempts ADD COLUMN response_body_truncated INTEGER NOT NULL DEFAULT 0;
    `
  },
  {
    // Members (issue 39, decisions 0107 to 0109): a block left half-done is found by its mark; a user by payout
    // address; each pair of users found sharing an address once.
    version: 12,
    sql: `
      CREATE INDEX memberships_blocking ON memberships (json_extract(record, '$.block.since'))
        WHERE json_extract(record, '$.block.state') = 'blocking';
      ALTER TABLE users ADD COLUMN payout_address TEXT;
      CREATE INDEX users_by_payout_address ON users (payout_address) WHERE payout_address IS NOT NULL;
      CREATE TABLE payout_proofs (
        user_nanoid TEXT PRIMARY KEY,
        salt TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX payout_proofs_by_expiry ON payout_proofs (expires_at);
      CREATE TABLE payout_changes (
        nanoid TEXT PRIMARY KEY,
        user_nanoid TEXT NOT NULL,
        created_at TEXT NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX payout_changes_by_user ON payout_changes (user_nanoid, created_at, nanoid);
      CREATE TABLE duplicate_pairs (
        first_user TEXT NOT NULL,
        second_user TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (first_user, second_user)
      ) STRICT;
      CREATE INDEX duplicate_pairs_by_second ON duplicate_pairs (second_user);
    `
  },
  {
    // Invoices (issue 38): a member's number is theirs once per team; the list reads a team's, or one member's, newest
    // first.
    version: 13,
    sql: `
      CREATE TABLE invoices (
        nanoid TEXT PRIMARY KEY,
        team_nanoid TEXT NOT NULL,
        recipient_nanoid TEXT NOT NULL,
        invoice_number TEXT NOT NULL,
        state TEXT NOT NULL,
        revision INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (team_nanoid, recipient_nanoid, invoice_number)
      ) STRICT;
      CREATE INDEX invoices_by_team ON invoices (team_nanoid, created_at, nanoid);
      CREATE INDEX invoices_by_recipient ON invoices (team_nanoid, recipient_nanoid, created_at, nanoid);
    `
  },
  {
    // Pay schedules (issue 37, decision 0110): the record as JSON beside the columns the runner leases by, its lease a
    // fencing token (decision 0090).
    version: 14,
    sql: `
      CREATE TABLE pay_schedules (
        nanoid TEXT PRIMARY KEY,
        team_nanoid TEXT NOT NULL,
        state TEXT NOT NULL,
        next_instalment INTEGER NOT NULL,
        next_pay_at INTEGER,
        created_at TEXT NOT NULL,
        lease_token INTEGER NOT NULL DEFAULT 0,
        lease_until INTEGER NOT NULL DEFAULT 0,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX pay_schedules_by_team ON pay_schedules (team_nanoid, created_at, nanoid);
      CREATE INDEX pay_schedules_due ON pay_schedules (state, next_pay_at);
    `
  }
]
