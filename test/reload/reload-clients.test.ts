// A reload names the routes a values edit reaches only through a client profile
// (routes/<connector>/connector.yaml with its own `values:`), of the route's folder or a folder
// above, and serves them the new value; routes the edit does not reach are not named.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { captureLogs } from '../hubvendor-payment-inbound/helpers.ts';
import { reloadProject, startVendor, viaClient, type Vendor } from './project.ts';

let first: Vendor;
let second: Vendor;
let engine: RunningEngine;
let project: ReturnType<typeof reloadProject>;
const logs = captureLogs();

const values = (hub: string, timeout: number) =>
  `vendor.url: ${first.url}\ngreeting: hello\nhub.url: ${hub}\nhub.timeout: ${timeout}\n`;

beforeAll(async () => {
  first = await startVendor();
  second = await startVendor();
  project = reloadProject(first.url, {
    'routes/conn/connector.yaml': 'values: demo\nclients:\n  hub:\n    base-url: "{{hub.url}}"\n',
    'routes/conn/direct.yaml': viaClient('direct'),
    'routes/conn/deeper/nested.yaml': viaClient('nested'),
    'routes/other/connector.yaml':
      'values: demo\nclients:\n  hub:\n    base-url: "{{vendor.url}}"\n    timeouts: { request: "{{hub.timeout}}" }\n',
    'routes/other/elsewhere.yaml': viaClient('elsewhere'),
  });
  project.write('values/demo.values.yaml', values(first.url, 5000));
  engine = await startEngine({
    routes: ['routes'],
    root: project.root,
    port: 0,
    logger: logs.logger,
    shutdownTimeoutMs: 2000,
  });
});

afterAll(async () => {
  await engine?.close();
  await first?.close();
  await second?.close();
});

const post = async (path: string) =>
  (await fetch(engine.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
    .status;

describe('reload through client profiles', () => {
  it('names the routes whose profile resolves differently, in the folder and below it', async () => {
    expect(await post('/direct')).toBe(200);
    expect(first.calls).toBe(1);
    project.write('values/demo.values.yaml', values(second.url, 5000));
    const r = await engine.reload('test');
    expect(r).toMatchObject({ ok: true, added: [], removed: [], changed: ['direct', 'nested'] });
    const line = logs.lines.filter((l) => /^routes reloaded in \d+ ms: /.test(l.msg)).at(-1);
    expect(line.msg).toMatch(/: 2 changed \(direct, nested\)$/);
    // and the new value is what the route calls
    expect(await post('/direct')).toBe(200);
    expect(await post('/nested')).toBe(200);
    expect([first.calls, second.calls]).toEqual([1, 2]);
  });

  it('names a route whose profile takes a typed value from the values file, and none for an unused value', async () => {
    project.write('values/demo.values.yaml', values(second.url, 4000));
    expect(await engine.reload('test')).toMatchObject({ ok: true, changed: ['elsewhere'] });
    // a value no profile nor route uses names none
    project.write('values/demo.values.yaml', values(second.url, 4000) + 'unused: 1\n');
    expect(await engine.reload('test')).toMatchObject({ ok: true, added: [], removed: [], changed: [] });
  });
});
