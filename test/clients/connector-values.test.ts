// The connector document of a folder (its `clients:` document, connector.yaml) names the values file
// of every route of the folder that names none; a route's own `values:` wins. Checked through
// `engine run` (a whole folder and one route file given alone), lint, a reload, the console's
// route view and a scoped --set.

import { describe, it, expect, afterAll } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { loadValues } from '../../engine/config/values.ts';
import { routeViews } from '../../engine/console/views.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { lintFiles } from '../helpers/lint-files.ts';

const CLIENTS = `values: demo-v1
clients:
  vendor:
    base-url: "{{vendor.baseUrl}}"
`;

/**
 * A route answering `{"greeting": <its values' greeting>}` after a call through the profile; `extra` goes
 * before `from`.
 */
const route = (id: string, extra = '') => `id: ${id}
${extra}from:
  http:
    path: /${id}
steps:
  - set:
      values:
        body: "{ 'greeting': '{{greeting}}' }"
  - to-http:
      client: vendor
      path: /x
      into: vars.unused
      method: HEAD
`;

/** Without the vendor call: a route that only answers its greeting. */
const plain = (id: string, extra = '') => route(id, extra).replace(/ {2}- to-http:[\s\S]*$/, '');

const FILES = {
  'values/demo-v1.values.yaml': 'vendor.baseUrl: http://127.0.0.1:9\ngreeting: hello\n',
  'values/other-v1.values.yaml': 'greeting: bonjour\n',
  'routes/conn/connector.yaml': CLIENTS,
  'routes/conn/inherits.yaml': plain('inherits'),
  'routes/conn/own.yaml': plain('own', 'values: other-v1\n'),
  // uses the profile (never called here)
  'routes/conn/caller.yaml': route('caller'),
};

const engines: RunningEngine[] = [];
afterAll(async () => {
  for (const e of engines) await e.close();
});

async function start(root: string, routes = ['routes']): Promise<RunningEngine> {
  const e = await startEngine({ routes, root, port: 0, logger: createLogger('silent'), processEnv: {} });
  engines.push(e);
  return e;
}

const greet = async (e: RunningEngine, id: string) =>
  (
    await (
      await fetch(`${e.url}/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()
  ).greeting;

const lint = lintFiles;

describe("a route without values: takes its folder's connector document's", () => {
  it('resolves its placeholders from it; a route that names its own keeps its own', async () => {
    const e = await start(tmpProject(FILES));
    expect(await greet(e, 'inherits')).toBe('hello');
    expect(await greet(e, 'own')).toBe('bonjour');
    expect(Object.fromEntries(e.routes.map((r) => [r.id, r.valuesName]))).toEqual({
      caller: 'demo-v1',
      inherits: 'demo-v1',
      own: 'other-v1',
    });
    // the console shows each route with the values it resolved from
    const views = routeViews(e, []);
    expect(views.find((v) => v.id === 'inherits')).toMatchObject({
      valuesName: 'demo-v1',
      values: expect.arrayContaining([expect.objectContaining({ key: 'greeting', value: 'hello' })]),
    });
    expect(views.find((v) => v.id === 'own')).toMatchObject({ valuesName: 'other-v1' });
  });

  it('also when the route file is given alone (the connector.yaml beside it is read)', async () => {
    const root = tmpProject(FILES);
    const e = await start(root, [join(root, 'routes/conn/inherits.yaml')]);
    expect(e.routes.map((r) => r.id)).toEqual(['inherits']);
    expect(await greet(e, 'inherits')).toBe('hello');
  });

  it('a reload that changes the values the connector document names serves its routes the new ones, and names them changed', async () => {
    const root = tmpProject({
      ...FILES,
      'values/other-v1.values.yaml': 'vendor.baseUrl: http://127.0.0.1:9\ngreeting: bonjour\n',
    });
    const e = await start(root);
    expect(await greet(e, 'inherits')).toBe('hello');
    writeFileSync(join(root, 'routes/conn/connector.yaml'), CLIENTS.replace('demo-v1', 'other-v1'));
    const r = await e.reload('test');
    expect(r).toMatchObject({ ok: true, changed: ['caller', 'inherits', 'own'] });
    expect(await greet(e, 'inherits')).toBe('bonjour');
    // an edit of the inherited values file reaches the route that inherits it, not the other
    writeFileSync(join(root, 'routes/conn/own.yaml'), plain('own', 'values: demo-v1\n'));
    writeFileSync(join(root, 'values/other-v1.values.yaml'), 'vendor.baseUrl: http://127.0.0.1:9\ngreeting: salut\n');
    expect(await e.reload('test')).toMatchObject({ ok: true, changed: ['caller', 'inherits', 'own'] });
    writeFileSync(join(root, 'values/other-v1.values.yaml'), 'vendor.baseUrl: http://127.0.0.1:9\ngreeting: hallo\n');
    expect(await e.reload('test')).toMatchObject({ ok: true, changed: ['caller', 'inherits'] });
    expect([await greet(e, 'inherits'), await greet(e, 'own')]).toEqual(['hallo', 'hello']);
  });

  it('a scoped --set of a property only such a route uses is accepted', () => {
    const root = tmpProject({
      ...FILES,
      'routes/conn/inherits.yaml': plain('inherits').replace('{{greeting}}', '{{extra.greeting}}'),
    });
    const values = loadValues({
      dir: join(root, 'values'),
      processEnv: {},
      set: { 'demo-v1:extra.greeting': 'hi' },
      routes: [join(root, 'routes')],
    });
    expect(values.find('demo-v1')!.get('extra.greeting')).toBe('hi');
  });
});

describe('engine lint of values from the connector document', () => {
  it('is clean for routes that inherit', async () => {
    expect(await lint(FILES)).toEqual([]);
  });

  it('a route with placeholders and no values file from either place: the same error as before, naming both places', async () => {
    const out = await lint({
      ...FILES,
      'routes/conn/connector.yaml': 'clients:\n  vendor:\n    base-url: http://127.0.0.1:9\n',
      'routes/conn/own.yaml': plain('own', 'values: other-v1\n'),
      'routes/bare/r.yaml': plain('bare'),
    });
    const needs =
      "placeholder '{{greeting}}' needs a values file: add 'values: <name>' to the route, or to the connector document (connector.yaml) of its folder (at steps[0].set.values.body)";
    expect(out).toEqual([
      `routes/bare/r.yaml:8:15 ${needs}`,
      `routes/conn/caller.yaml:8:15 ${needs}`,
      `routes/conn/inherits.yaml:8:15 ${needs}`,
    ]);
  });

  it('a missing values file of the connector document is said there, and once in each route that would take it, at its first placeholder', async () => {
    const out = await lint({ ...FILES, 'routes/conn/connector.yaml': CLIENTS.replace('demo-v1', 'demo-v2') });
    expect(out[0]).toMatch(
      /^routes\/conn\/connector.yaml:1:9 values file 'demo-v2' not found under .*; did you mean 'demo-v1'\?/,
    );
    const missing =
      "values file 'demo-v2' of routes/conn/connector.yaml (the values of this folder's routes) is not found: see the problem reported there";
    expect(out.slice(1)).toEqual([
      `routes/conn/caller.yaml:8:15 ${missing} (at steps[0].set.values.body)`,
      "routes/conn/caller.yaml:10:15 client 'vendor' has errors (see above) (at steps[1].to-http.client)",
      `routes/conn/inherits.yaml:8:15 ${missing} (at steps[0].set.values.body)`,
    ]);
  });

  it('two connector documents of one folder naming different values files: refused at the second', async () => {
    const out = await lint({
      ...FILES,
      'routes/conn/more-connector.yaml': 'values: other-v1\nclients:\n  other:\n    base-url: http://127.0.0.1:9\n',
    });
    expect(out).toContainEqual(
      "routes/conn/more-connector.yaml:1:9 the routes of this folder already take values 'demo-v1' from routes/conn/connector.yaml: one connector document per folder gives them values (this document's placeholders may still use its own) (at values)",
    );
  });
});
