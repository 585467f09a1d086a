// The console off: no span consumer, so no tracer (the hot path keeps its one `tracing.tracer` check and
// allocates nothing), no /console/ and no / redirect. ENGINE_CONSOLE_ENABLED wins over the
// environment's default (on in the sandbox).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineExtension, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';
import { consoleEnabled, consoleExtension, CONSOLE_ENV } from '../../engine/console/index.ts';

describe('console switched off', () => {
  let engine: RunningEngine;
  beforeAll(async () => {
    process.env[CONSOLE_ENV] = 'false';
    const list: EngineExtension[] = [];
    list.push(
      sandboxExtension(),
      consoleExtension(() => list),
    );
    engine = await startEngine({
      routes: ['routes/hubvendor-foreign-exchange'],
      env: 'sandbox',
      port: 0,
      logger: createLogger('silent'),
      extensions: list,
      processEnv: {},
    });
  }, 60_000);
  afterAll(async () => {
    delete process.env[CONSOLE_ENV];
    await engine?.close();
  });

  it('installs no tracer and no span detail, and serves neither /console/ nor /', async () => {
    expect(engine.services.tracing.tracer).toBeUndefined();
    expect(engine.services.tracing.detail).toBeUndefined();
    expect((await fetch(`${engine.url}/console/`)).status).toBe(404);
    expect((await fetch(`${engine.url}/`, { redirect: 'manual' })).status).toBe(404);
    const fx = await fetch(`${engine.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD' }),
    });
    expect(fx.status).toBe(200);
  });
});

describe('consoleEnabled', () => {
  it('is on in the sandbox and off elsewhere unless the setting or the variable says otherwise', () => {
    expect(consoleEnabled(undefined, true, {})).toBe(true);
    expect(consoleEnabled(undefined, false, {})).toBe(false);
    expect(consoleEnabled(true, false, {})).toBe(true);
    expect(consoleEnabled(false, true, {})).toBe(false);
    expect(consoleEnabled(false, false, { [CONSOLE_ENV]: 'true' })).toBe(true);
    expect(consoleEnabled(true, true, { [CONSOLE_ENV]: '0' })).toBe(false);
    expect(() => consoleEnabled(undefined, true, { [CONSOLE_ENV]: 'yes' })).toThrow(
      `${CONSOLE_ENV} must be true or false`,
    );
  });
});
