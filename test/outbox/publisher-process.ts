// A replica's outbox publisher alone in a process, for the test that SIGKILLs it mid-batch:
// node --import tsx test/outbox/publisher-process.ts <postgres url> <schema>. Prints `started`.
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import { HttpClients, DEFAULT_TIMEOUTS } from '../../engine/outbound/http-client.ts';
import { Metrics } from '../../engine/observability/metrics.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { OutboxPublisher } from '../../engine/outbox/publisher.ts';

const [url, schema] = process.argv.slice(2);
const store = await openPostgresStore({ url, schema, poolSize: 2 });
const p = new OutboxPublisher(store, new HttpClients(), new Metrics(false), createLogger('silent'), { pollMs: 20 });
p.routes.set('hook', {
  timeouts: { ...DEFAULT_TIMEOUTS, request: 60_000, response: 60_000, socket: 60_000 },
  retry: { enabled: false, maxRetries: 0, delay: 10, multiplier: 2, statuses: [] },
});
p.start();
console.log('started');
