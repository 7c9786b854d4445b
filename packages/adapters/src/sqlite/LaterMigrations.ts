/**
 * The SQLite migrations from version 10 on, appended to `Migrations.ts`'s list (which keeps its file within the
 * source bound). Append new migrations at the end with the next version; never edit one that has shipped.
 */
import type { Migration } from "./Migrations.ts"

/** Versions 10 and later, oldest first. */
export const laterMigrations: ReadonlyArray<Migration> = [
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
