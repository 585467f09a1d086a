// Reload without restart (engine.reload; engine/reload/reload.ts): a new route is served, an
// edited one answers its new way, values, transforms and schemas are compiled in again, a broken
// edit keeps the last good routes with the diagnostic, and an exchange in flight finishes on the
// route it started on while the next request gets the new one.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { captureLogs } from '../hubvendor-payment-inbound/helpers.ts';
import { httpRoute, reloadProject, startVendor, type Vendor } from './project.ts';

let vendor: Vendor;
let engine: RunningEngine;
let project: ReturnType<typeof reloadProject>;
const logs = captureLogs();

const post = async (path: string, body: unknown = {}) => {
  const res = await fetch(engine.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

beforeAll(async () => {
  vendor = await startVendor();
  project = reloadProject(vendor.url, {
    'transforms/shape.jsonata': '{"shape": "round"}\n',
    'routes/shaped.yaml': `id: shaped
from:
  http:
    path: /shaped
steps:
  - validate:
      schema: schemas/shaped.schema.json
  - transform:
      file: transforms/shape.jsonata
`,
    'schemas/shaped.schema.json': JSON.stringify({ type: 'object', properties: { size: { type: 'integer' } } }),
  });
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
  await vendor?.close();
});

describe('reload', () => {
  it('serves a new route file without a restart, and reports it added', async () => {
    expect((await post('/added')).status).toBe(404);
    project.write('routes/added.yaml', httpRoute('added', '{"added": true}'));
    const r = await engine.reload('test');
    expect(r).toMatchObject({ ok: true, added: ['added'], removed: [], changed: [] });
    expect(await post('/added')).toMatchObject({ status: 200, body: { added: true } });
    expect(engine.routes.map((x) => x.id)).toContain('added');
    // the one log line says what changed and how long it took
    const line = logs.lines.filter((l) => /^routes reloaded in \d+ ms: /.test(l.msg)).at(-1);
    expect(line).toMatchObject({ level: 'info', reason: 'test', added: ['added'], removed: [], changed: [] });
    expect(line.msg).toMatch(/^routes reloaded in \d+ ms: 1 added \(added\)$/);
  });

  it('serves the new behaviour of an edited route; routes that did not change are not reported', async () => {
    project.write('routes/hello.yaml', httpRoute('hello', '{"greeting": "{{greeting}}", "version": 2}'));
    const r = await engine.reload();
    expect(r).toMatchObject({ ok: true, added: [], removed: [], changed: ['hello'] });
    expect(await post('/hello')).toMatchObject({ status: 200, body: { greeting: 'hello', version: 2 } });
  });

  it('compiles values, transforms and schemas in again', async () => {
    project.write('values/demo.values.yaml', `vendor.url: ${vendor.url}\ngreeting: bonjour\n`);
    // only the route whose placeholders resolve differently changed
    expect(await engine.reload()).toMatchObject({ ok: true, changed: ['hello'] });
    expect((await post('/hello')).body).toEqual({ greeting: 'bonjour', version: 2 });

    expect((await post('/shaped', { size: 1 })).body).toEqual({ shape: 'round' });
    project.write('transforms/shape.jsonata', '{"shape": "square"}\n');
    expect(await engine.reload()).toMatchObject({ ok: true, changed: ['shaped'] });
    expect((await post('/shaped', { size: 1 })).body).toEqual({ shape: 'square' });

    project.write(
      'schemas/shaped.schema.json',
      JSON.stringify({ type: 'object', properties: { size: { type: 'string' } } }),
    );
    expect(await engine.reload()).toMatchObject({ ok: true, changed: ['shaped'] });
    const refused = await post('/shaped', { size: 1 });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('size');
  });

  it('keeps the last good routes on a broken edit and reports the diagnostic', async () => {
    const good = await post('/hello');
    project.write(
      'routes/hello.yaml',
      httpRoute('hello', '{"version": 3}').replace('  - transform:', '  - transfrom:'),
    );
    const r = await engine.reload();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({
      line: 12,
      message: expect.stringContaining("unknown step kind 'transfrom'; did you mean 'transform'?"),
    });
    expect(r.diagnostics[0].file).toMatch(/routes\/hello\.yaml$/);
    expect(await post('/hello')).toEqual(good);
    const line = logs.lines.filter((l) => /^reload refused/.test(l.msg)).at(-1);
    expect(line).toMatchObject({
      level: 'warn',
      msg: 'reload refused: 1 problem(s); still serving the previous routes',
    });
    expect(line.problems[0]).toContain('transfrom');

    project.write('routes/hello.yaml', httpRoute('hello', '{"version": 3}'));
    expect(await engine.reload()).toMatchObject({ ok: true, changed: ['hello'] });
    expect((await post('/hello')).body).toEqual({ version: 3 });
  });

  it('refuses a reload whose routes collide on one path, serving the previous ones', async () => {
    project.write('routes/twin.yaml', httpRoute('twin', '{"twin": true}').replace('path: /twin', 'path: /hello'));
    const r = await engine.reload();
    expect(r.ok).toBe(false);
    // lint names both files (before, the router threw: `reload failed: ... /hello`, at the project)
    if (!r.ok) {
      expect(r.diagnostics[0].file).toMatch(/routes\/twin\.yaml$/);
      expect(r.diagnostics[0].message).toMatch(
        /^POST \/hello is already served by route 'hello' \(.*routes\/hello\.yaml:5:11\); two routes cannot share/,
      );
    }
    expect((await post('/hello')).body).toEqual({ version: 3 });
    project.remove('routes/twin.yaml');
  });

  it('answers 404 for a removed route and reports it removed', async () => {
    project.remove('routes/added.yaml');
    expect(await engine.reload()).toMatchObject({ ok: true, added: [], removed: ['added'], changed: [] });
    expect((await post('/added')).status).toBe(404);
    await expect(engine.call('added', {})).rejects.toThrow(/no route 'added'/);
  });

  it('finishes an exchange in flight on the route it started on; the next request gets the new one', async () => {
    project.write('routes/slow.yaml', httpRoute('slow', '{"version": "old", "call": vars.vendor.n}'));
    await engine.reload();
    const release = vendor.holdNext();
    const first = post('/slow');
    // the held call has reached the vendor: the exchange is in flight on the old route
    const deadline = Date.now() + 5000;
    const before = vendor.calls;
    while (vendor.calls === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    project.write('routes/slow.yaml', httpRoute('slow', '{"version": "new", "call": vars.vendor.n}'));
    expect(await engine.reload()).toMatchObject({ ok: true, changed: ['slow'] });
    const second = await post('/slow');
    expect(second).toMatchObject({ status: 200, body: { version: 'new' } });
    release();
    expect(await first).toMatchObject({ status: 200, body: { version: 'old' } });
  });

  it('runs concurrent reload requests one at a time, a burst sharing one reload', async () => {
    project.write('routes/burst.yaml', httpRoute('burst', '{"burst": 1}'));
    const [a, b, c] = await Promise.all([engine.reload(), engine.reload(), engine.reload()]);
    expect(a).toMatchObject({ ok: true, added: ['burst'] });
    // b and c waited for a, then shared one reload that found nothing new
    expect(b).toBe(c);
    expect(b).toMatchObject({ ok: true, added: [], removed: [], changed: [] });
  });
});
