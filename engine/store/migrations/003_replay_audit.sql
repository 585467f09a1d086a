-- Replay and discard of failed exchanges, and their audit. A record being replayed is 'replaying'
-- (claimed_at says since when, so a replay that died with its process can be taken again); the
-- operator who settled it and when are kept on the record, and every replay or discard appends one
-- audit row (never updated, never deleted by the engine).
ALTER TABLE failed_exchanges DROP CONSTRAINT failed_exchanges_status;
ALTER TABLE failed_exchanges
  ADD CONSTRAINT failed_exchanges_status CHECK (status IN ('open', 'replaying', 'replayed', 'discarded'));
ALTER TABLE failed_exchanges ADD COLUMN detail text;
ALTER TABLE failed_exchanges ADD COLUMN context jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE failed_exchanges ADD COLUMN claimed_at timestamptz;
ALTER TABLE failed_exchanges ADD COLUMN settled_by text;
ALTER TABLE failed_exchanges ADD COLUMN settled_at timestamptz;

CREATE TABLE failed_audit (
  id       bigserial PRIMARY KEY,
  at       timestamptz NOT NULL DEFAULT now(),
  actor    text NOT NULL,
  action   text NOT NULL CHECK (action IN ('replay', 'discard')),
  records  text[] NOT NULL,
  outcome  text NOT NULL,
  via      text
);

CREATE INDEX failed_audit_at ON failed_audit (at DESC);
CREATE INDEX failed_audit_records ON failed_audit USING gin (records);
