// Two engines in one process, with different settings: each traces to its own exporter, records
// bodies masked with its own secrets and bounded by its own console.bodyLimit, keeps its own store
// and values, and closing one leaves the other tracing, recording and answering.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startEngine, type EngineExtension, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { consoleExtension } from '../../engine/console/index.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { deleteKeys, REDIS_URL, uniquePrefix } from '../replicas/helpers.ts';

const SECRET_A = 'alpha-secret-value-1111';
const SECRET_B = 'bravo-secret-value-2222';
const prefix = uniquePrefix('two-engines');

const ECHO = `id: echo
values: demo
from:
  http: { method: POST, path: /echo }
steps:
  - set:
      values:
        body: "{'greeting': '{{greeting}}', 'note': body.note}"
`;

const ONCE = `id: once
values: demo
from:
  http: { method: POST, path: /once }
steps:
  - dedupe:
      key: "headers.'x-key'"
  - set:
      values:
        body: "{'processed': true}"
`;

const environment = (greeting: string, extra: string) => `engine:
  console:
    enabled: true
${extra}keys:
  demo-greeting: ${greeting}
`;

const FILES = {
  'routes/demo/echo.yaml': ECHO,
  'routes/demo/once.yaml': ONCE,
  'values/demo.values.yaml': 'vendor:\n  api-key: ${demo-api-key}\ngreeting: ${demo-greeting}\n',
  // a: a memory store and the default body limit; b: Redis and the smallest body limit
  'values/environments/a.yaml': environment('hello-from-a', '    bodyLimit: 4000\n'),
  'values/environments/b.yaml': environment(
    'hello-from-b',
    `    bodyLimit: 100\n  store:\n    redis: { url: '${REDIS_URL}', prefix: '${prefix}' }\n`,
  ),
};

interface Started {
  engine: RunningEngine;
  exporter: InMemorySpanExporter;
}

/** `secret`: the demo-api-key, given as `--set` gives it (an environment file may not hold a secret). */
async function start(root: string, env: string, secret: string): Promise<Started> {
  const exporter = new InMemorySpanExporter();
  const list: EngineExtension[] = [];
  list.push(consoleExtension(() => list));
  const engine = await startEngine({
    routes: ['routes'],
    root,
    env,
    set: { 'demo-api-key': secret },
    port: 0,
    logger: createLogger('silent'),
    extensions: list,
    processEnv: {},
    tracing: { exporter },
  });
  return { engine, exporter };
}

async function post(
  e: RunningEngine,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const r = await fetch(`${e.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

/** The body the exchange span of `correlationId` recorded as received, whichever exporter got it. */
function received(exporters: InMemorySpanExporter[], correlationId: string): string | undefined {
  const spans = exporters.flatMap((x) => x.getFinishedSpans());
  const span = spans.find((s: ReadableSpan) => s.attributes['engine.correlation_id'] === correlationId);
  return span?.events.find((ev) => ev.name === 'request')?.attributes?.['engine.body'] as string | undefined;
}

describe('two engines in one process', () => {
  let root: string;
  let a: Started;
  let b: Started;
  beforeAll(async () => {
    root = tmpProject(FILES);
    a = await start(root, 'a', SECRET_A);
    b = await start(root, 'b', SECRET_B);
  }, 60_000);
  afterAll(async () => {
    await a?.engine.close();
    await b?.engine.close();
    await deleteKeys(prefix);
    rmSync(root, { recursive: true, force: true });
  });

  const note = `both secrets: ${SECRET_A} ${SECRET_B} ${'x'.repeat(200)}`;

  it('each answers with its own values', async () => {
    expect((await post(a.engine, '/echo', { note: 'hi' })).body.greeting).toBe('hello-from-a');
    expect((await post(b.engine, '/echo', { note: 'hi' })).body.greeting).toBe('hello-from-b');
  });

  it('each traces to its own exporter', async () => {
    const id = randomUUID();
    expect((await post(b.engine, '/echo', { note: 'b' }, { 'x-correlation-id': id })).status).toBe(200);
    expect(b.exporter.getFinishedSpans().some((s) => s.attributes['engine.correlation_id'] === id)).toBe(true);
    expect(a.exporter.getFinishedSpans().some((s) => s.attributes['engine.correlation_id'] === id)).toBe(false);
  });

  it('each records bodies masked with its own secrets and bounded by its own body limit', async () => {
    const ida = randomUUID();
    const idb = randomUUID();
    await post(a.engine, '/echo', { note }, { 'x-correlation-id': ida });
    await post(b.engine, '/echo', { note }, { 'x-correlation-id': idb });
    // which exporter gets which spans is the test above: here, only how each engine masks
    const textA = received([a.exporter, b.exporter], ida)!;
    const textB = received([a.exporter, b.exporter], idb)!;
    expect(textA).toBeDefined();
    expect(textB).toBeDefined();
    // a masks its secret (b's is not a's to know) and keeps the whole body (limit 4000)
    expect(textA).not.toContain(SECRET_A);
    expect(textA).toContain('alph****');
    expect(textA).toContain(SECRET_B);
    expect(textA.length).toBeGreaterThan(200);
    expect(textA.endsWith('…')).toBe(false);
    // b masks its own and cuts at its limit of 100 characters
    expect(textB).not.toContain(SECRET_B);
    expect(textB).toContain('brav****');
    expect(textB.length).toBe(101);
    expect(textB.endsWith('…')).toBe(true);
  });

  it('each remembers processed inputs in its own store (a: memory, b: Redis)', async () => {
    expect(b.engine.services.settings.store?.redis?.prefix).toBe(prefix);
    expect(a.engine.services.settings.store?.redis).toBeUndefined();
    const key = { 'x-key': `k-${randomUUID()}` };
    expect((await post(a.engine, '/once', {}, key)).body).toEqual({ processed: true });
    expect((await post(b.engine, '/once', {}, key)).body).toEqual({ processed: true });
    expect((await post(a.engine, '/once', {}, key)).body).toEqual({ status: 'duplicate' });
    expect((await post(b.engine, '/once', {}, key)).body).toEqual({ status: 'duplicate' });
  });

  it('closing one leaves the other answering, tracing and recording masked bodies', async () => {
    await a.engine.close();
    const id = randomUUID();
    const r = await post(b.engine, '/echo', { note }, { 'x-correlation-id': id });
    expect(r.status).toBe(200);
    expect(r.body.greeting).toBe('hello-from-b');
    const text = received([b.exporter], id);
    expect(text).toBeDefined();
    expect(text).not.toContain(SECRET_B);
    expect(text).toContain('brav****');
    expect(b.engine.services.tracing.tracer).toBeDefined();
  });
});
