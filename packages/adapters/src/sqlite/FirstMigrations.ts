/**
 * The SQLite schema's first nine migrations (issues 1 to 22), as they shipped: `Migrations.ts` lists them first. Never
 * edit one; a change of the schema is a new migration at the end of that list.
 */
import type { Migration } from "./Migrations.ts"

/** Migrations 1 to 9, oldest first. */
export const firstMigrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    sql: `
      CREATE TABLE companies (
        nanoid TEXT PRIMARY KEY,
        record TEXT NOT NULL
      ) STRICT;

      CREATE TABLE teams (
        nanoid TEXT PRIMARY KEY,
        company_nanoid TEXT NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX teams_by_company ON teams (company_nanoid);

      CREATE TABLE users (
        nanoid TEXT PRIMARY KEY,
        wallet TEXT NOT NULL UNIQUE,
        email TEXT NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX users_by_email ON users (email);

      CREATE TABLE memberships (
        nanoid TEXT PRIMARY KEY,
        team_nanoid TEXT NOT NULL,
        user_nanoid TEXT NOT NULL,
        role TEXT NOT NULL,
        email TEXT NOT NULL,
        created_at TEXT NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (team_nanoid, user_nanoid)
      ) STRICT;
      CREATE INDEX memberships_by_team ON memberships (team_nanoid, created_at, nanoid);
      CREATE INDEX memberships_by_team_email ON memberships (team_nanoid, email);
      CREATE INDEX memberships_by_user ON memberships (user_nanoid, created_at, nanoid);

      CREATE TABLE team_settings (
        team_nanoid TEXT PRIMARY KEY,
        record TEXT NOT NULL
      ) STRICT;

      CREATE TABLE member_settings (
        team_nanoid TEXT NOT NULL,
        user_nanoid TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (team_nanoid, user_nanoid)
      ) STRICT;

      CREATE TABLE siwe_nonces (
        nonce TEXT PRIMARY KEY,
        wallet_key TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        used INTEGER NOT NULL DEFAULT 0,
        record TEXT NOT NULL
      ) STRICT;
      CREATE INDEX siwe_nonces_by_expiry ON siwe_nonces (expires_at);

      CREATE TABLE idempotency_keys (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        state TEXT NOT NULL,
        response TEXT,
        lease_holder TEXT,
        lease_until INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (scope, key)
      ) STRICT;
      CREATE INDEX idempotency_keys_by_lapse ON idempotency_keys (lease_until);

      CREATE TABLE issued_requests (
        salt TEXT PRIMARY KEY,
        team_nanoid TEXT NOT NULL,
        record TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'issued',
        executed_at INTEGER,
        signature TEXT,
        result TEXT,
        lease_holder TEXT,
        lease_until INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX issued_requests_by_execution ON issued_requests (state, executed_at);

      CREATE TABLE payments (
        nanoid TEXT PRIMARY KEY,
        salt TEXT NOT NULL,
        team_nanoid TEXT NOT NULL,
        recipient_nanoid TEXT,
        state TEXT NOT NULL,
        pay_at_time INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        record TEXT NOT NULL,
        lease_holder TEXT,
        lease_until INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX payments_by_team ON payments (team_nanoid, created_at);
      CREATE INDEX payments_by_recipient ON payments (recipient_nanoid, created_at);
      CREATE INDEX payments_due ON payments (state, pay_at_time);
      CREATE INDEX payments_by_salt ON payments (salt);

      CREATE TABLE event_outbox (
        id TEXT PRIMARY KEY,
        created INTEGER NOT NULL,
        team_nanoid TEXT,
        dispatched INTEGER NOT NULL DEFAULT 0,
        event TEXT NOT NULL,
        lease_holder TEXT,
        lease_until INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX event_outbox_pending ON event_outbox (dispatched, created, id);
    `
  },
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
  }
]
