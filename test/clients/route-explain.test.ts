// `engine routes --explain ID` (engine/cli/route-explain.ts): a route's values file and where it
// came from, each client profile it names after `extends` with secrets masked, and the
// on-exception handlers it runs, its own or its folder's.

import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { explainRoute } from '../../engine/cli/route-explain.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const call = (id: string, extra = '') => `id: ${id}
${extra}from:
  http: { path: /${id} }
steps:
  - to-http: { client: vendor, path: /x, method: GET }
`;

const FILES = {
  'values/demo-v1.values.yaml': 'vendor.baseUrl: http://127.0.0.1:9\nvendor.timeout: 1500\n',
  'values/other-v1.values.yaml': 'vendor.baseUrl: http://127.0.0.1:8\nvendor.timeout: 2500\n',
  // a template of all connectors, extended by the connector's profile
  'routes/connector.yaml':
    'clients:\n  vendor:\n    base-url: "{{vendor.baseUrl}}"\n    timeouts: { request: "{{vendor.timeout}}" }\n',
  'routes/conn/connector.yaml': `connector: gc-demo-connector
values: demo-v1
on-exception:
  - when: { kind: [timeout] }
    problem: { status: 504, code: GC027, title: Vendor timeout }
clients:
  vendor:
    extends: vendor
    static-headers: { x-api-key: do-not-print-this-key }
    headers: { x-trace: "'t'" }
`,
  'routes/conn/inherits.yaml': call('inherits'),
  'routes/conn/own.yaml': call('own', 'connector: own-connector\nvalues: other-v1\non-exception: []\n'),
};

const explain = (id: string) => {
  const root = tmpProject(FILES);
  return explainRoute({ routes: [join(root, 'routes')], root, logger: createLogger('silent'), processEnv: {} }, id);
};

describe('engine routes --explain', () => {
  it("shows what a route takes from its folder's connector document, the profile after extends, the secret masked", async () => {
    const { ok, text } = await explain('inherits');
    expect(ok).toBe(true);
    expect(text).toMatch(/^route inherits \(.*routes\/conn\/inherits\.yaml\)\n/);
    expect(text).toMatch(/\nvalues: demo-v1 \(from the connector document .*routes\/conn\/connector\.yaml\)\n/);
    expect(text).toMatch(/\nclient vendor \(.*routes\/conn\/connector\.yaml\), after extends:\n/);
    expect(text).toContain('base-url: http://127.0.0.1:9');
    expect(text).toContain('request: 1500');
    expect(text).toContain('x-api-key: do-n****');
    expect(text).not.toContain('do-not-print-this-key');
    expect(text).toMatch(
      /\non-exception \(from the connector document .*routes\/conn\/connector\.yaml\):\n {2}- when kind: timeout -> problem\n$/,
    );
  });

  it("shows a route's own values and on-exception as its own", async () => {
    const { text } = await explain('own');
    expect(text).toContain('values: other-v1 (named by the route)');
    // the template resolved from the route's connector document's values, not the route's
    expect(text).toContain('request: 1500');
    expect(text).toMatch(/\non-exception: none\n$/);
  });

  it('names the connector id and where it is said, and where each client setting is written, with the values line behind a placeholder', async () => {
    const inherits = (await explain('inherits')).text;
    expect(inherits).toMatch(
      /\nconnector: gc-demo-connector \(from the connector document .*routes\/conn\/connector\.yaml\)\n/,
    );
    expect(inherits).toMatch(/\n {2}extends vendor \(.*routes\/connector\.yaml\)\n/);
    // the timeout: written in the template (line 4), its number from the values file (line 2)
    expect(inherits).toMatch(
      /\n {4}timeouts\.request: .*routes\/connector\.yaml:4 <- \{\{vendor\.timeout\}\} = .*values\/demo-v1\.values\.yaml:2\n/,
    );
    expect(inherits).toMatch(/\n {4}static-headers\.x-api-key: .*routes\/conn\/connector\.yaml:9\n/);
    expect(inherits).not.toContain('do-not-print-this-key');
    const own = (await explain('own')).text;
    expect(own).toContain('connector: own-connector (named by the route)');
    // the template resolves from the connector document's values, and says so
    expect(own).toMatch(/\{\{vendor\.timeout\}\} = .*values\/demo-v1\.values\.yaml:2\n/);
  });

  it('an unknown id is refused, naming the routes', async () => {
    expect(await explain('nope')).toEqual({ ok: false, text: "no route 'nope' is loaded (routes: inherits, own)\n" });
  });
});
