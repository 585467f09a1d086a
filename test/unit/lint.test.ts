import { describe, it, expect } from 'vitest';
import { toolsJsonSchema } from '../../engine/gateway/tools.ts';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { lintProject } from '../../engine/engine.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { routeJsonSchema } from '../../engine/dsl/route-schema.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const VALUES = 'base: ${demo-base-url}\nretryFlag: true\n';
const GOOD = `id: demo
values: demo-v1
from:
  http:
    method: POST
    path: /demo/{ref}
steps:
  - validate:
      schema: { type: object, required: [a] }
  - to-http:
      method: GET
      url: "{{base}}/things/{ref}"
      path-params:
        ref: params.ref
      retry:
        enabled: "{{retryFlag}}"
`;

async function lint(route: string, extra: Record<string, string> = {}) {
  const root = tmpProject({ 'values/demo-v1.values.yaml': VALUES, 'routes/demo.yaml': route, ...extra });
  const diags = await lintProject({ routes: ['routes'], root, logger: createLogger('silent'), processEnv: {} });
  return diags.map((d) => formatDiagnostic({ ...d, file: d.file.replace(/^.*routes\//, 'routes/') }));
}

describe('engine lint', () => {
  it('a correct route has no diagnostics, even with environmental keys unset', async () => {
    expect(await lint(GOOD)).toEqual([]);
  });

  it('an unknown key gets file:line:col and a did-you-mean', async () => {
    const out = await lint(GOOD.replace('path-params:', 'path-parms:'));
    expect(out).toContainEqual(
      expect.stringMatching(
        /^routes\/demo\.yaml:13:7 unknown key 'path-parms' in to-http step; did you mean 'path-params'\?/,
      ),
    );
  });

  it('a value in a list is named by its list and index', async () => {
    const out = await lint(
      `${GOOD}on-exception:\n  - when: { kind: [vendor, timeot] }\n    problem: { status: 502 }\n`,
    );
    expect(out).toContainEqual(
      expect.stringMatching(/^routes\/demo\.yaml:\d+:\d+ 'kind\[1\]' must be one of: .*\(did you mean 'timeout'\?\)/),
    );
  });

  it('a missing values file is said once, with a suggestion, not again at every placeholder', async () => {
    const out = await lint(GOOD.replace('values: demo-v1', 'values: demo-v2'));
    expect(out).toEqual([
      expect.stringMatching(
        /^routes\/demo\.yaml:2:9 values file 'demo-v2' not found under .*; did you mean 'demo-v1'\?/,
      ),
    ]);
  });

  it('a set step that sets nothing is refused', async () => {
    const out = await lint(GOOD.replace('steps:\n', 'steps:\n  - set:\n  - set: { values: {} }\n'));
    expect(out).toEqual([
      expect.stringMatching(/^routes\/demo\.yaml:8:9 set step is empty/),
      expect.stringMatching(/^routes\/demo\.yaml:9:20 'values' is empty/),
    ]);
  });

  it('an enum gets its allowed values', async () => {
    const out = await lint(GOOD.replace('method: GET', 'method: GETT'));
    expect(out).toContainEqual(
      expect.stringMatching(
        /^routes\/demo\.yaml:11:15 'method' must be one of: GET, POST, PUT, PATCH, DELETE, HEAD \(did you mean 'GET'\?\)/,
      ),
    );
  });

  it('a value that fits none of its alternatives gets one diagnostic naming them all, in words', async () => {
    const out = await lint(GOOD.replace('enabled: "{{retryFlag}}"', 'enabled: "yes"\n        max-retries: true'));
    expect(out).toEqual([
      expect.stringMatching(/^routes\/demo\.yaml:16:18 'enabled' must be true or false /),
      expect.stringMatching(/^routes\/demo\.yaml:17:22 'max-retries' must be a number /),
    ]);
  });

  it('an unknown step kind, source kind or top-level key gets a suggestion', async () => {
    const out = await lint(
      GOOD.replace('- validate:', '- validat:').replace('  http:', '  htp:').replace('values:', 'value:'),
    );
    expect(out.some((l) => /unknown step kind 'validat'; did you mean 'validate'\?/.test(l))).toBe(true);
    expect(out.some((l) => /unknown source kind 'htp'; did you mean 'http'\?/.test(l))).toBe(true);
    expect(
      out.some((l) => /^routes\/demo\.yaml:2:1 unknown key 'value' in route; did you mean 'values'\?/.test(l)),
    ).toBe(true);
  });

  it('a url template that lacks a path parameter names it', async () => {
    const out = await lint(GOOD.replace('/things/{ref}', '/things'));
    expect(out.some((l) => /lacks the placeholder \{ref\}/.test(l))).toBe(true);
  });

  it('a bad JSONata expression is located', async () => {
    const out = await lint(GOOD.replace('ref: params.ref', 'ref: params.(ref'));
    expect(out.some((l) => /^routes\/demo\.yaml:14:14 JSONata: /.test(l))).toBe(true);
  });

  it('YAML syntax errors are located', async () => {
    const out = await lint('id: demo\nfrom: [\n');
    expect(out[0]).toMatch(/^routes\/demo\.yaml:\d+:\d+ YAML: /);
  });

  it('a missing schema file is named', async () => {
    const out = await lint(GOOD.replace('schema: { type: object, required: [a] }', 'schema: schemas/nope.json'));
    expect(out.some((l) => l.includes('file not found: schemas/nope.json'))).toBe(true);
  });

  it('the CLI prints diagnostics and exits 1; the shipped routes are clean', () => {
    const root = tmpProject({
      'values/demo-v1.values.yaml': VALUES,
      'routes/demo.yaml': GOOD.replace('path-params:', 'path-parms:'),
    });
    const bin = resolve('bin/engine.js');
    let status = 0;
    let out = '';
    try {
      execFileSync(process.execPath, [bin, 'lint', 'routes'], { cwd: root, encoding: 'utf8' });
    } catch (e: any) {
      status = e.status;
      out = e.stdout;
    }
    expect(status).toBe(1);
    expect(out).toMatch(/routes\/demo\.yaml:13:7 unknown key 'path-parms'/);
    const clean = execFileSync(process.execPath, [bin, 'lint', 'routes/'], { encoding: 'utf8' });
    expect(clean).toContain('no problems');
  }, 60_000);

  it('schemas/gateway-tools.schema.json is the generated tools file schema', () => {
    const committed = JSON.parse(readFileSync(join('schemas', 'gateway-tools.schema.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(toolsJsonSchema())));
    expect(committed.properties.tools.items.properties['path-params']).toBeDefined();
  });

  it('schemas/route.schema.json is the generated DSL schema', () => {
    const committed = JSON.parse(readFileSync(join('schemas', 'route.schema.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(routeJsonSchema())));
  });
});
