/**
 * The SQLite schema's first migration (version 1, shipped): the tables svc was first made with. Kept apart from the
 * later steps (`Migrations.ts`) only for that file's length; like every shipped migration, never edited.
 */
export const firstSchema = `
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
