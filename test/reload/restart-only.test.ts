// Settings a reload cannot apply (the store and its Redis connection are kept) are not ignored in
// silence: the reload goes through and one warning says they apply at the next restart.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { captureLogs } from '../hubvendor-payment-inbound/helpers.ts';
import { httpRoute, reloadProject } from './project.ts';

const logs = captureLogs();
let engine: RunningEngine;
let project: ReturnType<typeof reloadProject>;

beforeAll(async () => {
  project = reloadProject('http://127.0.0.1:9', {
    'routes/hello.yaml': httpRoute('hello', '{"ok": true}'),
    'values/environments/dev.yaml': 'keys: {}\n',
  });
  engine = await startEngine({
    routes: ['routes'],
    root: project.root,
    env: 'dev',
    port: 0,
    logger: logs.logger,
    shutdownTimeoutMs: 2000,
  });
});
afterAll(async () => {
  await engine?.close();
});

it('a changed engine.store is reported as applying at the next restart; the reload still goes through', async () => {
  const warned = () => logs.lines.filter((l) => l.msg === 'reload: engine.store applies at the next restart');
  expect((await engine.reload('same')).ok).toBe(true);
  expect(warned()).toHaveLength(0);
  project.write(
    'values/environments/dev.yaml',
    "keys: {}\nengine:\n  store:\n    redis:\n      url: redis://127.0.0.1:6379/0\n      prefix: 'reload-test:'\n",
  );
  expect(await engine.reload('store edited')).toMatchObject({ ok: true });
  expect(warned()).toHaveLength(1);
  expect(warned()[0].level).toBe('warn');
});
