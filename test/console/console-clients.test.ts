// The console's clients API over real sockets, on an in-process sandbox engine: every client
// profile's breaker, bulkhead and retry budget; each route's clients with their breaker state;
// a breaker opened by a 503 outage of the payment hub simulator (injected through the sandbox
// panel) pushed over the live stream at once. The breaker closing again is in
// clients-page.browser.test.ts (it waits the shipped 10 s before the probe).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineExtension, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';
import { consoleExtension } from '../../engine/console/index.ts';
import type { GuardView } from '../../engine/outbound/client-guard.ts';

const FX_CLIENT = 'hubvendor-foreign-exchange/hubvendor';

describe('console clients API on a sandbox engine', () => {
  let engine: RunningEngine;

  const get = async (path: string) => (await fetch(engine.url + path)).json() as Promise<any>;
  const send = (method: string, path: string, body?: unknown) =>
    fetch(engine.url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const fx = () =>
    fetch(`${engine.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }),
    });

  beforeAll(async () => {
    const list: EngineExtension[] = [];
    list.push(
      sandboxExtension(),
      gatewayExtension({ audit: false }),
      consoleExtension(() => list),
    );
    engine = await startEngine({
      routes: ['routes'],
      env: 'sandbox',
      port: 0,
      logger: createLogger('silent'),
      shutdownTimeoutMs: 2000,
      extensions: list,
    });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('lists every client profile with its guards and the routes calling it', async () => {
    const { clients } = (await get('/console/api/clients')) as { clients: GuardView[] };
    const names = clients.map((c) => c.client);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining([FX_CLIENT, 'hubvendor-payment/hubvendor', 'screenvendor-screening/screenvendor']),
    );
    const fxClient = clients.find((c) => c.client === FX_CLIENT)!;
    expect(fxClient).toMatchObject({
      file: 'routes/hubvendor-foreign-exchange/connector.yaml',
      routes: ['get-exchange-rate'],
      breaker: { state: 'closed', retryAfterMs: 0, settings: { failures: 5, halfOpenAfter: 10_000 } },
      budget: { refused: 0, settings: { ratio: 0.2 } },
    });
    expect(fxClient.bulkhead).toBeUndefined();
    expect(clients.find((c) => c.client === 'screenvendor-screening/screenvendor')?.bulkhead).toMatchObject({
      active: 0,
      queued: 0,
      settings: { maxConcurrent: 64, maxQueue: 64 },
    });
    const { routes } = await get('/console/api/routes');
    expect(routes.find((r: any) => r.id === 'get-exchange-rate').clients).toEqual([
      { client: FX_CLIENT, state: 'closed', since: expect.any(String) },
    ]);
  });

  it('a 503 outage of the hub simulator opens the FX client breaker: pushed on the stream, shown per route', async () => {
    const ctrl = new AbortController();
    const stream = await fetch(`${engine.url}/console/api/stream`, { signal: ctrl.signal });
    const reader = stream.body!.getReader();
    await reader.read(); // `connected`: the stream is registered
    const added = await send('POST', '/console/api/panels/sandbox/faults', { sim: 'hubvendor', rule: { status: 503 } });
    expect(added.status).toBe(201);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await fx()).status);
      // the first call's four attempts and the second's first make five failures in a row: the
      // second answers the hub's own 503 (mapped 502, no retry); then every call is refused at once
      expect(statuses).toEqual([502, 502, 503, 503, 503, 503]);

      const dec = new TextDecoder();
      let text = '';
      const deadline = Date.now() + 5000;
      while (!/event: clients\n/.test(text) && Date.now() < deadline) text += dec.decode((await reader.read()).value);
      const frame = text.split('\n\n').find((f) => f.startsWith('event: clients'))!;
      expect(frame).toBeDefined();
      const pushed = JSON.parse(frame.slice(frame.indexOf('data: ') + 6)).clients as GuardView[];
      expect(pushed.find((c) => c.client === FX_CLIENT)?.breaker).toMatchObject({
        state: 'open',
        lastCause: 'hubvendor-forex answered 503',
      });

      const { clients } = (await get('/console/api/clients')) as { clients: GuardView[] };
      const b = clients.find((c) => c.client === FX_CLIENT)!.breaker!;
      expect(b.state).toBe('open');
      expect(b.retryAfterMs).toBeGreaterThan(0);
      expect(b.retryAfterMs).toBeLessThanOrEqual(10_000);
      // another client of the same vendor keeps its own breaker
      expect(clients.find((c) => c.client === 'hubvendor-payment/hubvendor')?.breaker?.state).toBe('closed');
      const { routes } = await get('/console/api/routes');
      expect(routes.find((r: any) => r.id === 'get-exchange-rate').clients).toEqual([
        { client: FX_CLIENT, state: 'open', since: b.since, lastCause: 'hubvendor-forex answered 503' },
      ]);
      expect(routes.find((r: any) => r.id === 'bank-directory').clients[0]).toMatchObject({ state: 'closed' });
    } finally {
      ctrl.abort();
      await send('DELETE', '/console/api/panels/sandbox/faults?sim=hubvendor');
    }
  });
});
