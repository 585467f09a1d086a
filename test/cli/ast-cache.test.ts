// The engine command keeps the trees of its JSONata expressions in .engine/cache (ENGINE_CACHE,
// engine/expressions/ast-cache.ts): with the cache warm, lint says exactly what it says without it
// (a syntax error at its line and column), eval gives the same results, regex literals included.

import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { engineCli } from '../helpers/cli.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const EXPRESSION = "{ 'pair': body.buy & '/' & body.sell, 'de': $contains(body.iban, /^de/i) }";
const ROUTE = `id: rates
from:
  http: { method: POST, path: /rates }
steps:
  - set:
      values:
        body: "${EXPRESSION}"
`;
const BROKEN = `id: broken
from:
  http: { method: POST, path: /broken }
steps:
  - set:
      values:
        body: "{ 'a': body.a + }"
`;

describe('the JSONata parse cache of the engine command', () => {
  const root = tmpProject({ 'routes/rates.yaml': ROUTE, 'routes/broken.yaml': BROKEN, 'ok/rates.yaml': ROUTE });
  const cache = join(root, '.engine', 'cache');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('lint and eval say the same with the cache off, cold and warm', async () => {
    const off = { cwd: root, env: { ENGINE_CACHE: 'off' } };
    const evalArgs = ['eval', '-c', '-e', EXPRESSION, '--body'];
    const stdin = JSON.stringify({ buy: 'EUR', sell: 'USD', iban: 'DE89 3704' });
    const lintOff = await engineCli(['lint', 'routes/'], off);
    expect(lintOff.code).toBe(1);
    expect(lintOff.stdout).toMatch(/routes\/broken\.yaml:7:\d+ .*JSONata: .* at character \d+/);
    const evalOff = await engineCli(evalArgs, { ...off, stdin });
    expect(JSON.parse(evalOff.stdout)).toEqual({ pair: 'EUR/USD', de: true });
    expect(existsSync(cache)).toBe(false);
    // the first command fills the cache, the next ones read it
    const lintCold = await engineCli(['lint', 'routes/'], { cwd: root });
    expect(readFileSync(join(cache, 'jsonata-asts.json'), 'utf8')).toMatch(/^\{"parser":"jsonata /);
    const lintWarm = await engineCli(['lint', 'routes/'], { cwd: root });
    expect(lintCold).toEqual(lintOff);
    expect(lintWarm).toEqual(lintOff);
    expect(await engineCli(evalArgs, { cwd: root, stdin })).toEqual(evalOff);
    expect(await engineCli(['lint', 'ok/'], { cwd: root })).toMatchObject({ code: 0 });
  }, 120_000);
});
