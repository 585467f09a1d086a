// The engine command keeps its YAML parses in .engine/cache (ENGINE_YAML_CACHE, engine/core/yaml-cache.ts):
// with the cache warm, lint and run say exactly what they say without it, every problem at its
// file:line:col, and a cache folder that cannot be written never stops a start.

import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { engineCli, engineStarts } from '../helpers/cli.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const ROUTE = `id: orders
values: shop
from:
  http: { method: PSOT, path: "/orders/{ref}" }
steps:
  - to-http:
      method: GET
      url: "{{vendor.uri}}/x/{ref}"
      path-param: { ref: params.ref }
      retry: { enabled: 3 }
`;

describe('the YAML parse cache of the engine command', () => {
  const root = tmpProject({
    'values/shop.values.yaml': 'vendor:\n  url: http://127.0.0.1:9\n',
    'routes/shop/orders.yaml': ROUTE,
    'routes/shop/broken.yaml': 'id: broken\nfrom: [\n',
    'ok/ping.yaml':
      'id: ping\nvalues: shop\nfrom: { direct: {} }\nsteps:\n  - set: { values: { vars.u: "\'{{vendor.url}}\'" } }\n',
  });
  const cache = join(root, '.engine', 'cache');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('lint and run report the same problems at the same places with the cache warm as without it', async () => {
    const off = { cwd: root, env: { ENGINE_YAML_CACHE: 'off' } };
    const lintOff = await engineCli(['lint', 'routes/'], off);
    expect(lintOff.code).toBe(1);
    expect(lintOff.stdout).toMatch(/routes\/shop\/orders\.yaml:4:\d+ /);
    expect(lintOff.stdout).toMatch(/routes\/shop\/broken\.yaml:\d+:\d+ YAML: /);
    expect(existsSync(cache)).toBe(false);
    // the first run fills the cache (the default place: .engine/cache of the project), the second reads it
    const cold = await engineCli(['lint', 'routes/'], { cwd: root });
    expect(existsSync(join(cache, 'yaml-values.json'))).toBe(true);
    const warm = await engineCli(['lint', 'routes/'], { cwd: root });
    expect(cold).toEqual(lintOff);
    expect(warm).toEqual(lintOff);
    const runOff = await engineStarts(['routes/', '--port', '0'], off);
    const runWarm = await engineStarts(['routes/', '--port', '0'], { cwd: root });
    expect(runOff.started).toBe(false);
    expect(runOff.code).toBe(1);
    expect(runOff.stderr).toMatch(/not starting/);
    expect(runWarm).toEqual(runOff);
  }, 120_000);

  it('starts where the cache folder cannot be made', async () => {
    writeFileSync(join(root, 'a-file'), '');
    const r = await engineStarts(['ok/', '--port', '0'], { cwd: root, env: { ENGINE_YAML_CACHE: 'a-file/cache' } });
    expect(r.stderr).toBe('');
    expect(r.started || r.stdout).toBe(true);
  }, 60_000);
});
