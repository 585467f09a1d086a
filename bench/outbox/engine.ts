// One engine for the outbox benchmark (bench/outbox/run.ts), in its own process so its CPU time is
// its own: a webhook route (dedupe, to-eventhub) on a temporary project, publishing to the hub at
// argv[3] directly (`direct`), through the embedded outbox (`embedded`) or through PostgreSQL
// (`postgres`, schema argv[4]). Prints its URL.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';

const [mode, hubUrl, schema] = process.argv.slice(2);
const root = mkdtempSync(join(tmpdir(), 'bench-outbox-'));
const files: Record<string, string> = {
  'values/environments/bench.yaml':
    mode === 'postgres'
      ? `simulated: false\nengine:\n  store:\n    postgres:\n      url: ${process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'}\n      schema: ${schema}\n`
      : 'simulated: false\n',
  'routes/hooks/connector.yaml': `clients:
  hub:
    base-url: ${hubUrl}
    event:
      source: com.example
      outbox: ${mode !== 'direct'}
`,
  'routes/hooks/hook.yaml': `id: hook
from:
  http:
    method: POST
    path: /hook
    raw-body: true
steps:
  - dedupe:
      key: "headers.'webhook-id'"
  - to-eventhub:
      client: hub
      type: com.example.hooked
      id: "headers.'webhook-id'"
      subject: body.key
      into: vars.event
  - set:
      values:
        body: "{ 'status': 'accepted', 'eventId': vars.event.id }"
`,
};
for (const [name, text] of Object.entries(files)) {
  mkdirSync(join(root, name, '..'), { recursive: true });
  writeFileSync(join(root, name), text);
}
const engine = await startEngine({
  routes: ['routes'],
  root,
  env: 'bench',
  port: 0,
  host: '127.0.0.1',
  logger: createLogger('silent'),
  processEnv: {},
});
// ready once the outbox's store is open
for (;;) {
  const r = await fetch(`${engine.url}/health/ready`);
  if (r.ok) break;
  await new Promise((res) => setTimeout(res, 50));
}
console.log(engine.url);
process.on('SIGTERM', () => void engine.close().then(() => process.exit(0)));
