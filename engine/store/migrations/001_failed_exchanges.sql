-- Failed exchanges: an asynchronous input that failed for good, kept with its cause so an operator
-- can list, inspect and later replay or discard it. The body is the original input (to run it again);
-- headers hold only what a replay needs, never a credential; both are shown masked.
CREATE TABLE failed_exchanges (
  id            text PRIMARY KEY,
  route         text NOT NULL,
  route_version text,
  source        text NOT NULL,
  status        text NOT NULL DEFAULT 'open',
  code          text NOT NULL,
  cause         text,
  body          text,
  headers       jsonb NOT NULL DEFAULT '{}'::jsonb,
  attempts      integer NOT NULL DEFAULT 1,
  first_at      timestamptz NOT NULL,
  last_at       timestamptz NOT NULL,
  trace_id      text,
  correlation_id text,
  CONSTRAINT failed_exchanges_status CHECK (status IN ('open', 'replayed', 'discarded'))
);

CREATE INDEX failed_exchanges_route_last ON failed_exchanges (route, last_at DESC);
CREATE INDEX failed_exchanges_status_last ON failed_exchanges (status, last_at DESC);
CREATE INDEX failed_exchanges_code ON failed_exchanges (code);
