// Client templates: a profile with placeholders in a clients document without values
// (routes/connector.yaml) is resolved, for each connector document whose profile extends it, from
// that document's values. Real vendor stubs on 127.0.0.1 see what each connector sends.

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../../engine/engine.ts';
import { startProject, postJson } from '../helpers/project-engine.ts';
import { lintFiles } from '../helpers/lint-files.ts';
import { reloadProject, viaClient } from '../reload/project.ts';

interface Stub {
  url: string;
  seen: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

async function stub(): Promise<Stub> {
  const seen: Stub['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const TEMPLATES = `clients:
  hub:
    base-url: "{{hub.url}}"
    static-headers:
      x-desk: "{{desk}}"
    timeouts:
      request: "{{hub.timeout}}"
`;

const route = viaClient;

const connector = (values: string) => `values: ${values}\nclients:\n  hub: { extends: hub }\n`;

let a: Stub;
let b: Stub;
let engine: RunningEngine;
let project: ReturnType<typeof reloadProject>;
let files: Record<string, string>;

beforeAll(async () => {
  a = await stub();
  b = await stub();
  files = {
    'routes/connector.yaml': TEMPLATES,
    'routes/a/connector.yaml': connector('a'),
    'routes/a/call-a.yaml': route('call-a'),
    'routes/b/connector.yaml': connector('b'),
    'routes/b/call-b.yaml': route('call-b'),
    'values/a.values.yaml': `hub.url: ${a.url}\ndesk: desk-a\nhub.timeout: 5000\n`,
    'values/b.values.yaml': `hub.url: ${b.url}\ndesk: desk-b\nhub.timeout: 4000\n`,
  };
  project = reloadProject(a.url, files);
  engine = await startProject(project.root);
});

afterAll(async () => {
  await engine?.close();
  await a?.close();
  await b?.close();
});

const post = async (e: RunningEngine, path: string) => (await postJson(e, path)).status;

describe('client templates (routes/connector.yaml)', () => {
  it('each connector resolves the template from its own values', async () => {
    expect(await post(engine, '/call-a')).toBe(200);
    expect(await post(engine, '/call-b')).toBe(200);
    expect(a.seen.map((s) => [s.path, s.headers['x-desk']])).toEqual([['/call-a', 'desk-a']]);
    expect(b.seen.map((s) => [s.path, s.headers['x-desk']])).toEqual([['/call-b', 'desk-b']]);
  });

  it('a connector folder run alone still finds the templates above it', async () => {
    const alone = await startProject(project.root, ['routes/b']);
    try {
      expect(await post(alone, '/call-b')).toBe(200);
      expect(b.seen.at(-1)).toMatchObject({ path: '/call-b', headers: { 'x-desk': 'desk-b' } });
    } finally {
      await alone.close();
    }
  });

  it('a reload names the routes whose values reach them only through the template', async () => {
    project.write('values/a.values.yaml', `hub.url: ${a.url}\ndesk: desk-a2\nhub.timeout: 5000\n`);
    expect(await engine.reload('test')).toMatchObject({ ok: true, added: [], removed: [], changed: ['call-a'] });
    expect(await post(engine, '/call-a')).toBe(200);
    expect(a.seen.at(-1)!.headers['x-desk']).toBe('desk-a2');
  });

  it('lint: a property one connector lacks is said at the template, for that connector', async () => {
    expect(await lintFiles(files)).toEqual([]);
    const out = await lintFiles({ ...files, 'values/b.values.yaml': `hub.url: ${b.url}\nhub.timeout: 4000\n` });
    expect(out).toEqual([
      "routes/connector.yaml:5:15 unknown property 'desk' in values 'b' (resolved for routes/b/connector.yaml, values 'b') (at clients.hub.static-headers.x-desk)",
      "routes/b/call-b.yaml:7:15 client 'hub' extends 'hub', which has errors (see above) (at steps[0].to-http.client)",
    ]);
  });

  it('lint: a typed setting is checked with the values it resolves from, and said at their line', async () => {
    const out = await lintFiles({
      ...files,
      'values/a.values.yaml': `hub.url: ${a.url}\ndesk: d\nhub.timeout: soon\n`,
    });
    expect(out[0]).toMatch(
      /^values\/a\.values\.yaml:3:14 property 'hub\.timeout': 'request' must be a number, got 'soon' \(used by \{\{hub\.timeout\}\} at routes\/connector\.yaml:7:16, clients\.hub\.timeouts\.request\) \(resolved for routes\/a\/connector\.yaml, values 'a'\)$/,
    );
    expect(out).toHaveLength(2);
  });

  it('lint: a route naming a template itself, and a document without values extending one', async () => {
    const direct = await lintFiles({ ...files, 'routes/c/call-c.yaml': `values: a\n${route('call-c')}` });
    expect(direct).toEqual([
      "routes/c/call-c.yaml:8:15 client 'hub' is a template of routes/connector.yaml, whose placeholders take the values of the document that extends it: extend it in the connector.yaml of this folder (hub: { extends: hub }) (at steps[0].to-http.client)",
    ]);
    const noValues = await lintFiles({ ...files, 'routes/b/connector.yaml': 'clients:\n  hub: { extends: hub }\n' });
    expect(noValues[0]).toBe(
      "routes/b/connector.yaml:2:19 client template 'hub' (routes/connector.yaml) takes its placeholders from the values of the document that extends it: add 'values: <name>' here (at clients.hub.extends)",
    );
  });

  it('lint: a misspelt key of a template is said where it is written', async () => {
    const out = await lintFiles({
      ...files,
      'routes/connector.yaml': TEMPLATES.replace('    timeouts:', '    timeout:'),
    });
    expect(out[0]).toMatch(/^routes\/connector\.yaml:6:5 unknown key 'timeout'.*did you mean 'timeouts'\?/);
  });
});

describe('client templates: unused', () => {
  it('lint warns of a template no client extends, in its own words', async () => {
    const out = await lintFiles({
      'routes/connector.yaml': TEMPLATES.replace('clients:\n', 'clients:\n  spare:\n    base-url: "{{spare.url}}"\n'),
      'routes/a/connector.yaml': connector('a'),
      'routes/a/call-a.yaml': route('call-a'),
      'values/a.values.yaml': 'hub.url: http://127.0.0.1:9\ndesk: d\nhub.timeout: 5000\n',
    });
    expect(out).toEqual([
      "routes/connector.yaml:2:3 warning: client template 'spare' is extended by no client: remove it or extend it in a connector's connector.yaml (spare: { extends: spare }) (at clients.spare)",
    ]);
  });
});
