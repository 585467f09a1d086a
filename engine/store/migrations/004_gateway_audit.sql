-- The gateway's audit trail (engine/gateway/audit-chain.ts): one row per decision, append-only,
-- each row carrying the hash of the one before it, so that an edited, removed or reordered row is
-- found by `engine audit verify`. seq is given by the writer under a table lock (no gaps, one
-- chain however many replicas write); the engine never updates or deletes a row.
CREATE TABLE gateway_audit (
  seq             bigint PRIMARY KEY,
  at              timestamptz NOT NULL,
  kind            text NOT NULL,
  tool            text,
  subscription    text,
  key_id          text,
  user_id         text,
  issuer          text,
  jti             text,
  args_digest     text,
  outcome         text,
  code            text,
  check_name      text,
  detail          text,
  correlation_id  text,
  client_ip       text,
  prev_hash       text NOT NULL,
  hash            text NOT NULL
);

CREATE INDEX gateway_audit_at ON gateway_audit (at DESC);
CREATE INDEX gateway_audit_user ON gateway_audit (user_id, at DESC);
CREATE INDEX gateway_audit_tool ON gateway_audit (tool, at DESC);
