// A file a step names is found beside the route first, then from the project root
// (core/step-file.ts): a validate schema, a transform file, a rule file, an output-schema and an
// on-exception template of the folder's connector document, each in the route folder and, with
// the same name, a different one at the root (the beside one wins); a name only the root has
// still resolves there; and a reload sees an edit of a file beside the route.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const schema = (required: string) => JSON.stringify({ type: 'object', required: [required] });
const template = (code: string) =>
  JSON.stringify({
    rules: [{ when: { kind: ['validation'] }, status: 422, code, title: 'Mapped', detail: `'mapped by ${code}'` }],
  });

const root = tmpProject({
  'values/demo.values.yaml': 'n: 1\n',
  'routes/conn/connector.yaml': `values: demo
on-exception:
  - when: { kind: [validation] }
    template: templates/errors.json
clients: {}
`,
  'routes/conn/echo.yaml': `id: echo
output-schema: schemas/out.schema.json
from:
  direct: {}
steps:
  - validate:
      schema: schemas/in.schema.json
      rules:
        - file: rules/positive.jsonata
  - transform: echo.jsonata
  - transform: shared/tag.jsonata
`,
  // beside the route: the connector's own
  'routes/conn/schemas/in.schema.json': schema('beside'),
  'routes/conn/schemas/out.schema.json': schema('beside'),
  'routes/conn/rules/positive.jsonata':
    "body.beside > 0 ? [] : [{ 'field': '/beside', 'message': 'must be positive (beside)' }]\n",
  'routes/conn/echo.jsonata': "{ 'beside': body.beside, 'from': 'beside' }\n",
  'routes/conn/templates/errors.json': template('GC004'),
  // the same names at the root: never read while the route folder has them
  'schemas/in.schema.json': schema('root'),
  'schemas/out.schema.json': schema('root'),
  'rules/positive.jsonata': "[{ 'field': '/root', 'message': 'root rule' }]\n",
  'echo.jsonata': "{ 'from': 'root' }\n",
  'templates/errors.json': template('GC054'),
  // only at the root: found there, as before
  'shared/tag.jsonata': "$merge([body, { 'tag': 'root-only' }])\n",
});

let engine: RunningEngine;
afterAll(async () => {
  await engine?.close();
});

describe('files named by steps', () => {
  it('are read beside the route first, then from the project root', async () => {
    engine = await startEngine({ routes: ['routes'], root, port: 0, logger: createLogger('silent') });
    // passes the schemas and the rule beside the route (those at the root require `root` or always fail)
    expect(await engine.call('echo', { body: { beside: 2 } })).toMatchObject({
      body: { beside: 2, from: 'beside', tag: 'root-only' },
    });
    // the rule beside the route refuses, the template beside the connector document maps
    const bad = await engine.call('echo', { body: { beside: -1 } }).then(
      (r) => r,
      (e) => e,
    );
    expect(JSON.stringify(bad)).toContain('mapped by GC004');
    expect(JSON.stringify(bad)).not.toContain('GC054');
  });

  it('a reload sees an edit of a file beside the route', async () => {
    const file = join(root, 'routes/conn/echo.jsonata');
    writeFileSync(file, readFileSync(file, 'utf8').replace("'beside' }", "'edited' }"));
    expect(await engine.reload()).toMatchObject({ ok: true, changed: ['echo'] });
    expect(await engine.call('echo', { body: { beside: 2 } })).toMatchObject({ body: { from: 'edited' } });
  });
});
