/**
 * The SQLite schema, as the list of migrations that build it. A database's `PRAGMA user_version` is the last one
 * applied; `SqliteDatabase` applies the rest at open, each in its own transaction. Append new migrations at the end
 * with the next version; never edit one that has shipped.
 *
 * Records are stored whole as JSON (`record`), beside the columns that queries filter and sort on; leased tables
 * carry `lease_token` and `lease_until` (`Leases.ts`; the `lease_holder` some still have is no longer written).
 */

import { firstMigrations } from "./FirstMigrations.ts"

/** One step of the schema. */
export interface Migration {
  readonly version: number
  readonly sql: string
}

/** Every migration, oldest first. */
export const migrations: ReadonlyArray<Migration> = [
  ...firstMigrations,
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
    // Invoices (issue 38): a member's number is theirs once per team; the list reads a team's, or one member's, newest
    // first. (Version 12 is the members slice's, landing beside it.)
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
  }
]
