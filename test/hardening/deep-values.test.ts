// A value nested deeper than the call stack, reaching an expression by a way the HTTP body depth
// limit does not cover (here a vendor answer), fails that exchange with a clear error in the log
// naming the route and step, a generic 500 to the caller, and the engine goes on serving.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const DEPTH = 200_000;
const deepJson = (kind: 'array' | 'object') =>
  kind === 'array' ? '['.repeat(DEPTH) + '1' + ']'.repeat(DEPTH) : '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);

let vendor: Server;
let engine: RunningEngine;
const logs: string[] = [];

const route = (id: string, expression: string) => `id: ${id}
values: deep
from:
  http:
    method: POST
    path: /${id}
steps:
  - to-http:
      name: deep-vendor
      method: GET
      url: "{{vendor.url}}/\${kind}"
      path-params:
        kind: body.kind
  - transform:
      expression: ${JSON.stringify(expression)}
`;

beforeAll(async () => {
  vendor = createServer((req, res) => {
    const body = deepJson(req.url === '/array' ? 'array' : 'object');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
  const root = tmpProject({
    'values/deep.values.yaml': 'vendor.url: http://127.0.0.1:1\n',
    'routes/stringify.yaml': route('stringify', '{"text": $string(body)}'),
    'routes/descend.yaml': route('descend', '{"n": $count(**)}'),
    'routes/ok.yaml':
      'id: ok\nfrom:\n  http:\n    method: POST\n    path: /ok\nsteps:\n  - transform:\n      expression: \'{"ok": true}\'\n',
  });
  const url = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
  const destination = { write: (line: string) => void logs.push(line) };
  engine = await startEngine({
    routes: ['routes'],
    root,
    port: 0,
    set: { 'vendor.url': url },
    logger: createLogger('warn', destination as any),
  });
});
afterAll(async () => {
  await engine?.close();
  await new Promise((r) => vendor?.close(r));
});

const post = async (path: string, body: unknown) => {
  const res = await fetch(engine.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('values nested deeper than the call stack', () => {
  it.each([
    ['stringify', 'array'],
    ['stringify', 'object'],
    ['descend', 'array'],
    ['descend', 'object'],
  ])('%s of a deep %s from the vendor fails the exchange with a clear error', async (id, kind) => {
    logs.length = 0;
    const r = await post(`/${id}`, { kind });
    expect(r.status).toBe(500);
    expect(r.body.detail).toBe('An unexpected error occurred');
    const line = logs.find((l) => l.includes(`expression at route ${id}, steps[1].transform.expression`));
    expect(line, logs.join('\n')).toMatch(/nested too deeply/);
    expect((await post('/ok', {})).body).toEqual({ ok: true });
  });
});
