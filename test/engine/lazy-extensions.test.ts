// The CLI's gateway extension loads its code only when the routes being loaded have a tools file
// (engine run, lint, test) or when one of its own commands runs. `engine run` with routes/gateway
// end to end: test/gateway/rate-limit.test.ts and test/replicas/two-replicas.test.ts.

import { describe, it, expect } from 'vitest';
import { resolve } from 'node:path';
import { loadExtensions } from '../../engine/cli/extensions.ts';
import type { PrepareContext } from '../../engine/engine.ts';

const ctx = (routes: string[]) => ({ routes: routes.map((r) => resolve(r)) }) as unknown as PrepareContext;
const docs = (x: Awaited<ReturnType<typeof loadExtensions>>[number]) =>
  x.documents?.({} as never)?.map((d) => d.key) ?? [];

describe('the gateway extension of the CLI', () => {
  it('engine run without tools files: no tools documents, no gateway', async () => {
    const [gateway] = await loadExtensions([], ['node', 'engine', 'run', 'routes/hubvendor-foreign-exchange']);
    await gateway.prepare?.(ctx(['routes/hubvendor-foreign-exchange']));
    expect(docs(gateway)).toEqual([]);
    expect(gateway.commands).toBeUndefined();
  });

  it('engine run with a tools file: the gateway loads and reads tools documents', async () => {
    const [gateway] = await loadExtensions([], ['node', 'engine', 'run', 'routes/gateway']);
    expect(docs(gateway)).toEqual([]);
    await gateway.prepare?.(ctx(['routes/gateway', 'routes/hubvendor-foreign-exchange']));
    const values = { dir: resolve('values'), environment: { name: 'sandbox' } };
    expect(
      gateway.documents?.({ values, services: { root: resolve('.'), lintOnly: true } } as never)?.map((d) => d.key),
    ).toEqual(['tools']);
  });

  it('the gateway commands (and help) load it at once', async () => {
    for (const argv of [
      ['node', 'engine', 'keys', 'new'],
      ['node', 'engine', '--help'],
      ['node', 'engine'],
    ]) {
      const [gateway] = await loadExtensions([], argv);
      expect(typeof gateway.commands, argv.join(' ')).toBe('function');
    }
  });
});
