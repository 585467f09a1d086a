// The connector document's `on-exception:` (connector.yaml) is the default of the routes of its
// folder: a route without on-exception takes it, a route with its own uses only its own, and
// `on-exception: []` opts out. Lint checks the document's handlers as a route's, where they are
// written; a reload names the routes that take them when they or their template change; the
// console draws them on each route that takes them.

import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { routeViews } from '../../engine/console/views.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { lintFiles } from '../helpers/lint-files.ts';

const TEMPLATE = JSON.stringify({
  rules: [
    {
      when: { vendorStatus: [503] },
      status: 503,
      code: 'GC054',
      title: 'Vendor down',
      detail: "'mapped by the template'",
    },
  ],
  default: { status: 502, code: 'GC027', title: 'Generic Error' },
});

const CLIENTS = `values: demo-v1
on-exception:
  - when: { kind: [vendor, timeout, connection] }
    template: transforms/demo/{{errorTemplate}}
clients:
  vendor:
    base-url: "{{vendor.url}}"
`;

/** A route calling the vendor (which answers 503); `tail` ends the file. */
const route = (id: string, tail = '') => `id: ${id}
from:
  http:
    path: /${id}
steps:
  - to-http:
      client: vendor
      path: /${id}
${tail}`;

const OWN = `on-exception:
  - when: { kind: [vendor] }
    problem: { status: 500, code: GC003, title: Own, detail: "'the route said so'" }
`;

let vendor: Server;
let vendorUrl: string;
beforeAll(async () => {
  vendor = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}'));
  });
  await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
  vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
});

const engines: RunningEngine[] = [];
afterAll(async () => {
  for (const e of engines) await e.close();
  vendor?.close();
});

const files = (extra: Record<string, string> = {}) => ({
  'values/demo-v1.values.yaml': `vendor.url: ${vendorUrl}\nerrorTemplate: vendor-errors.json\n`,
  'transforms/demo/vendor-errors.json': TEMPLATE,
  'routes/conn/connector.yaml': CLIENTS,
  'routes/conn/inherits.yaml': route('inherits'),
  'routes/conn/own.yaml': route('own', OWN),
  'routes/conn/opts-out.yaml': route('opts-out', 'on-exception: []\n'),
  ...extra,
});

async function start(root: string): Promise<RunningEngine> {
  const e = await startEngine({ routes: ['routes'], root, port: 0, logger: createLogger('silent'), processEnv: {} });
  engines.push(e);
  return e;
}

const answer = async (e: RunningEngine, id: string) => {
  const res = await fetch(`${e.url}/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const body = await res.json();
  return { status: res.status, code: body.code, detail: body.detail };
};

const lint = (extra: Record<string, string>) => lintFiles(files(extra));

describe("the connector document's on-exception", () => {
  it("maps the errors of a route without its own (placeholders from the document's values); a route with its own uses only its own; [] opts out", async () => {
    const e = await start(tmpProject(files()));
    expect(await answer(e, 'inherits')).toEqual({ status: 503, code: 'GC054', detail: 'mapped by the template' });
    expect(await answer(e, 'own')).toEqual({ status: 500, code: 'GC003', detail: 'the route said so' });
    // unmapped: the engine's own answer to a vendor error
    const out = await answer(e, 'opts-out');
    expect(out.code).not.toBe('GC054');
    expect(out.detail).not.toBe('mapped by the template');
    expect(Object.fromEntries(e.routes.map((r) => [r.id, r.handlersFrom]))).toEqual({
      inherits: expect.stringMatching(/routes\/conn\/connector\.yaml$/),
      own: undefined,
      'opts-out': undefined,
    });
  });

  it('is drawn on the console diagram of each route that takes it, labelled with its file', async () => {
    const e = await start(tmpProject(files()));
    const views = routeViews(e, []);
    expect(views.find((v) => v.id === 'inherits')!.graph!.onException).toEqual([
      expect.objectContaining({
        label: 'kind: vendor, timeout, connection',
        template: 'transforms/demo/vendor-errors.json',
        from: expect.stringMatching(/routes\/conn\/connector\.yaml$/),
      }),
    ]);
    expect(views.find((v) => v.id === 'own')!.graph!.onException).toEqual([
      expect.objectContaining({ label: 'kind: vendor', template: 'problem' }),
    ]);
    expect(views.find((v) => v.id === 'own')!.graph!.onException[0].from).toBeUndefined();
    expect(views.find((v) => v.id === 'opts-out')!.graph!.onException).toEqual([]);
  });

  it('a reload names the routes that take it when it or its template changes, and serves the change', async () => {
    const root = tmpProject(files());
    const e = await start(root);
    writeFileSync(join(root, 'transforms/demo/vendor-errors.json'), TEMPLATE.replace('GC054', 'GC004'));
    expect(await e.reload('test')).toMatchObject({ ok: true, changed: ['inherits'] });
    expect((await answer(e, 'inherits')).code).toBe('GC004');
    writeFileSync(
      join(root, 'routes/conn/connector.yaml'),
      CLIENTS.replace('kind: [vendor, timeout, connection]', 'kind: [timeout]'),
    );
    // the document is shared by every route of the folder: all count as changed
    expect(await e.reload('test')).toMatchObject({ ok: true, changed: ['inherits', 'opts-out', 'own'] });
    expect((await answer(e, 'inherits')).code).not.toBe('GC004');
  });
});

describe("engine lint of a connector document's on-exception", () => {
  it('is clean as shipped here', async () => {
    expect(await lint({})).toEqual([]);
  });

  it('reports a missing template file, an unknown kind and an unknown key at their place in the document', async () => {
    expect(
      await lint({ 'values/demo-v1.values.yaml': `vendor.url: ${vendorUrl}\nerrorTemplate: vendor-errrors.json\n` }),
    ).toEqual([
      "routes/conn/connector.yaml:4:15 file not found: transforms/demo/vendor-errrors.json; did you mean 'transforms/demo/vendor-errors.json'? (at on-exception[0].template)",
    ]);
    const kind = await lint({
      'routes/conn/connector.yaml': CLIENTS.replace('[vendor, timeout, connection]', '[vendor, timeuot]'),
    });
    expect(kind).toHaveLength(1);
    expect(kind[0]).toMatch(
      /^routes\/conn\/connector\.yaml:3:28 .*must be one of: .*\(did you mean 'timeout'\?\) \(at on-exception\[0\]\.when\.kind\[1\]\)$/,
    );
    const key = await lint({ 'routes/conn/connector.yaml': CLIENTS.replace('    template:', '    templat:') });
    expect(key).toHaveLength(1);
    expect(key[0]).toMatch(/^routes\/conn\/connector\.yaml:4:5 unknown key 'templat'.*did you mean 'template'/);
  });

  it('says once, as for a route, that it is not a list; a template that is a folder is said, not a crash', async () => {
    expect(
      await lint({ 'routes/conn/connector.yaml': CLIENTS.replace(/on-exception:\n(  .*\n)+/, 'on-exception: 3\n') }),
    ).toEqual(["routes/conn/connector.yaml:2:15 'on-exception' must be a list of handlers (at on-exception)"]);
    expect(await lint({ 'values/demo-v1.values.yaml': `vendor.url: ${vendorUrl}\nerrorTemplate: ''\n` })).toEqual([
      'routes/conn/connector.yaml:4:15 transforms/demo/ is a folder, not a file (at on-exception[0].template)',
    ]);
  });

  it('warns when no route of the folder takes it (each says its own)', async () => {
    const out = await lint({ 'routes/conn/inherits.yaml': route('inherits', OWN) });
    expect(out).toEqual([
      expect.stringMatching(
        /^routes\/conn\/connector\.yaml:2:1 warning: on-exception is taken by no route of this folder \(each has its own on-exception\)/,
      ),
    ]);
  });

  it('an unknown placeholder is said once, at the document; the routes that take the handlers say nothing', async () => {
    expect(
      await lint({ 'routes/conn/connector.yaml': CLIENTS.replace('{{errorTemplate}}', '{{errorTemplat}}') }),
    ).toEqual([
      expect.stringMatching(
        /^routes\/conn\/connector\.yaml:4:15 unknown property 'errorTemplat' in values 'demo-v1'; did you mean 'errorTemplate'\?/,
      ),
    ]);
  });

  it('refuses steps in a handler of the document, and a second document of the folder with on-exception', async () => {
    const steps = await lint({
      'routes/conn/connector.yaml': CLIENTS.replace(
        '    template: transforms/demo/{{errorTemplate}}\n',
        '    steps:\n      - log: { message: failed }\n',
      ),
    });
    expect(steps).toEqual([
      "routes/conn/connector.yaml:4:5 a connector document's on-exception handler runs no steps (it is shared by the routes of the folder): give the routes that need them an on-exception of their own (at on-exception[0].steps)",
    ]);
    const two = await lint({
      'routes/conn/more.yaml': 'on-exception: []\nclients:\n  other:\n    base-url: http://127.0.0.1:9\n',
    });
    expect(two).toContainEqual(
      'routes/conn/more.yaml:1:1 the routes of this folder take their defaults (values, on-exception) from routes/conn/connector.yaml: say on-exception there (at on-exception)',
    );
  });
});
