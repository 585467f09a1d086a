// The engine command keeps the validators of the schemas it compiled in its start-up cache
// (engine/schemas/validator-cache.ts): with the cache cold, warm or off, route tests that check
// requests against schema files get the same answers, and a bad schema file is said at its place.

import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { engineCli } from '../helpers/cli.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

/** What the route tests of `routes` said, case by case (not how long they took). */
async function routeTests(routes: string, cache: string): Promise<unknown> {
  const r = await engineCli(['test', routes, '--reporter', 'json'], { env: { ENGINE_CACHE: cache, LOG_LEVEL: '' } });
  const out = JSON.parse(r.stdout) as { passed: number; failed: number; cases: { name: string; ok: boolean }[] };
  return { code: r.code, passed: out.passed, failed: out.failed, cases: out.cases.map((c) => [c.name, c.ok]) };
}

describe('the validator cache of the engine command', () => {
  // relative to the working directory, where the engine puts it (.engine/ is git-ignored)
  const cache = join('.engine', `test-validators-${process.pid}`);
  const root = tmpProject({
    'routes/shop/orders.yaml':
      'id: orders\nfrom:\n  http: { method: POST, path: /orders }\nsteps:\n  - validate: { schema: schemas/order.schema.json }\n',
    'schemas/order.schema.json':
      '{\n  "type": "object",\n  "properties": {\n    "iban": { "type": "string", "format": "ibn" }\n  },\n  "requird": ["iban"]\n}\n',
  });
  afterAll(() => {
    rmSync(cache, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it('route tests with schema checks say the same with the cache cold, warm and off', async () => {
    for (const routes of ['routes/hubvendor-payment', 'routes/screenvendor-screening']) {
      const cold = await routeTests(routes, cache);
      expect(existsSync(join(cache, 'schema-validators.json'))).toBe(true);
      const warm = await routeTests(routes, cache);
      const off = await routeTests(routes, 'off');
      expect(cold).toMatchObject({ code: 0, failed: 0 });
      expect((cold as { passed: number }).passed).toBeGreaterThan(20);
      expect(warm).toEqual(cold);
      expect(off).toEqual(cold);
    }
  }, 120_000);

  it('lint says the problems of a bad schema file at its lines with the cache warm, and then its fix', async () => {
    const off = await engineCli(['lint', 'routes/'], { cwd: root, env: { ENGINE_CACHE: 'off' } });
    expect(off.code).toBe(1);
    expect(off.stdout).toMatch(/schemas\/order\.schema\.json:4:\d+ unknown format 'ibn'/);
    expect(off.stdout).toMatch(/schemas\/order\.schema\.json:6:\d+ unknown JSON Schema keyword 'requird'/);
    for (let i = 0; i < 2; i++)
      expect(await engineCli(['lint', 'routes/'], { cwd: root, env: { ENGINE_CACHE: undefined } })).toEqual(off);
    const file = join(root, 'schemas/order.schema.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('ibn', 'iban').replace('requird', 'required'));
    for (let i = 0; i < 2; i++) {
      const fixed = await engineCli(['lint', 'routes/'], { cwd: root, env: { ENGINE_CACHE: undefined } });
      expect(fixed.code, fixed.stdout).toBe(0);
    }
    expect(existsSync(join(root, '.engine/cache/schema-validators.json'))).toBe(true);
  }, 60_000);
});
