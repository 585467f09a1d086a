// An engine of one connector's folder (no tools file, so the CLI never loads the gateway and
// registers only its stand-in): every console API answers, the gateway shown absent.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { loadExtensions } from '../../engine/cli/extensions.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';

const ROUTES = ['routes/hubvendor-foreign-exchange'];

describe('console on a single-connector engine', () => {
  let engine: RunningEngine;
  const get = async (path: string) => {
    const res = await fetch(engine.url + path);
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    // the extensions exactly as `engine run routes/hubvendor-foreign-exchange` registers them
    const extensions = await loadExtensions(
      [sandboxExtension()],
      ['node', 'engine', 'run', ...ROUTES, '--env', 'sandbox'],
    );
    engine = await startEngine({
      routes: ROUTES,
      env: 'sandbox',
      port: 0,
      logger: createLogger('silent'),
      shutdownTimeoutMs: 2000,
      extensions,
    });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('overview and gateway answer 200 with the gateway absent', async () => {
    const overview = await get('/console/api/overview');
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ routes: 1, gateway: false });
    const gateway = await get('/console/api/gateway');
    expect([gateway.status, gateway.body]).toEqual([
      200,
      { available: false, subscriptions: [], tools: [], tryKeys: [] },
    ]);
  });

  it('every other console API answers too; the try-it form says there is no gateway', async () => {
    const id = `single-${randomUUID()}`;
    const fx = await fetch(`${engine.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': id },
      body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD' }),
    });
    expect(fx.status).toBe(200);
    const routes = await get('/console/api/routes');
    expect([routes.status, routes.body.routes.map((r: any) => [r.id, r.tools])]).toEqual([
      200,
      [['get-exchange-rate', []]],
    ]);
    expect((await get('/console/api/lint')).status).toBe(200);
    expect((await get('/console/api/exchanges')).status).toBe(200);
    expect((await get(`/console/api/exchanges/${id}`)).body).toMatchObject({ route: 'get-exchange-rate', status: 200 });
    expect((await get('/console/api/panels/sandbox')).status).toBe(200);
    const tried = await fetch(`${engine.url}/console/api/gateway/try`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'k', tool: 'getExchangeRate', arguments: {} }),
    });
    expect([tried.status, (await tried.json()).detail]).toEqual([
      404,
      'this engine serves no gateway (POST /mcp): none of its route folders has a tools file',
    ]);
    const ctrl = new AbortController();
    const stream = await fetch(`${engine.url}/console/api/stream`, { signal: ctrl.signal });
    expect(stream.status).toBe(200);
    ctrl.abort();
  });
});
