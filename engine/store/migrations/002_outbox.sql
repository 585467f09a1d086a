-- The webhook outbox: a verified, deduplicated webhook's CloudEvent waits here until the event hub
-- accepts it (engine/outbox/). The unique (route, dedupe_key) makes the row itself the durable mark
-- of the dedupe key: a webhook redelivered while its event waits is a duplicate. seq is the order of
-- arrival; the publisher takes, per order_key, only the oldest row. The original input (body,
-- headers without credentials, context) is kept so a permanent refusal becomes a failed exchange.
CREATE TABLE outbox (
  seq            bigserial PRIMARY KEY,
  route          text NOT NULL,
  route_version  text,
  dedupe_key     text,
  order_key      text NOT NULL,
  event_id       text NOT NULL,
  event_type     text NOT NULL,
  url            text NOT NULL,
  headers        jsonb NOT NULL DEFAULT '{}'::jsonb,
  event          text NOT NULL,
  input_body     text,
  input_headers  jsonb NOT NULL DEFAULT '{}'::jsonb,
  input_context  jsonb NOT NULL DEFAULT '{}'::jsonb,
  trace_id       text,
  correlation_id text,
  attempts       integer NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_error     text,
  CONSTRAINT outbox_dedupe UNIQUE (route, dedupe_key, event_id)
);

CREATE INDEX outbox_order ON outbox (order_key, seq);
