// DNS rebinding: a page on evil.example whose name a rebinding DNS points at the engine makes the
// browser send `Host: evil.example:P` and `Origin: http://evil.example:P`. Over real sockets with
// those headers set as the browser would: the console refuses every request whose Host is not
// one of its own names (reads of exchanges, simulator faults, the try-it form that calls /mcp from
// inside), answers on loopback and on the configured hosts, and refuses an Origin that is not the
// request's own host.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEngine, type EngineExtension, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';
import { consoleExtension } from '../../engine/console/index.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { rawRequest } from '../helpers/raw-request.ts';

const FAULT = { sim: 'hubvendor', rule: { path: '^/never$', status: 500 } };
const TRY = {
  key: 'sandbox-demo-subscription-key',
  tool: 'getExchangeRate',
  arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' },
};

describe('console host names on a sandbox engine', () => {
  let engine: RunningEngine;
  let port: number;
  /** a request to the engine's socket naming `host` (and `origin`, when given) */
  const as = (host: string, origin?: string) => (method: string, path: string, body?: unknown) =>
    rawRequest(engine.url, method, path, { host, ...(origin ? { origin } : {}) }, body);
  const evil = () => as(`evil.example:${port}`, `http://evil.example:${port}`);
  const faultsOnHub = async () =>
    (await as(`127.0.0.1:${port}`)('GET', '/console/api/panels/sandbox')).body.simulators.find(
      (s: any) => s.name === 'hubvendor',
    ).faults;

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
    port = engine.port;
    // an exchange to read: names and amounts a rebinding page must not see
    const fx = await fetch(`${engine.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': `hosts-${randomUUID()}` },
      body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD' }),
    });
    expect(fx.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('a rebinding host cannot read the exchanges, nor the page, its assets or the live stream', async () => {
    const list = await evil()('GET', '/console/api/exchanges');
    expect(list.status).toBe(403);
    expect(list.body.detail).toBe(
      `Host 'evil.example:${port}' is not one of this console's host names (loopback, the listen address, engine.console.allowedHosts)`,
    );
    expect(JSON.stringify(list.body)).not.toContain('get-exchange-rate');
    // no Origin at all (a plain GET of the rebinding page's own URL): the Host alone refuses it
    for (const path of [
      '/console/api/exchanges',
      '/console/api/overview',
      '/console/',
      '/console/assets/nope.js',
      '/console/api/stream',
      '/',
    ]) {
      expect((await as(`evil.example:${port}`)('GET', path)).status, path).toBe(403);
    }
  });

  it('a rebinding host cannot add a simulator fault', async () => {
    const add = await evil()('POST', '/console/api/panels/sandbox/faults', FAULT);
    expect(add.status).toBe(403);
    expect((await faultsOnHub()).some((f: any) => f.path === '^/never$')).toBe(false);
    expect((await evil()('DELETE', '/console/api/panels/sandbox/faults?sim=hubvendor')).status).toBe(403);
  });

  it('a rebinding host cannot call /mcp through the try-it form', async () => {
    const tried = await evil()('POST', '/console/api/gateway/try', TRY);
    expect(tried.status).toBe(403);
    expect(tried.body.steps).toBeUndefined();
  });

  it('loopback names are the console, on any port (a port-forward picks its own local port)', async () => {
    for (const name of ['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST']) {
      for (const host of [`${name}:${port}`, name, `${name}:9999`]) {
        expect((await as(host)('GET', '/console/api/exchanges')).status, host).toBe(200);
      }
    }
    // the page's own changes, with its own Origin
    const own = as(`localhost:${port}`, `http://localhost:${port}`);
    expect((await own('POST', '/console/api/panels/sandbox/faults', FAULT)).status).toBe(201);
    expect((await own('DELETE', '/console/api/panels/sandbox/faults?sim=hubvendor')).status).toBe(204);
    const tried = await as(`127.0.0.1:${port}`, `http://127.0.0.1:${port}`)('POST', '/console/api/gateway/try', TRY);
    expect(tried.status).toBe(200);
    expect(tried.body.steps.map((s: any) => [s.method, s.response.status])).toEqual([
      ['initialize', 200],
      ['notifications/initialized', 202],
      ['tools/call', 200],
    ]);
  }, 30_000);

  it("an Origin that is not the request's own host is refused, reads and changes alike", async () => {
    for (const origin of [
      `http://evil.example:${port}`,
      `http://localhost:${port}`,
      `http://127.0.0.1:${port + 1}`,
      'null',
      `ftp://127.0.0.1:${port}`,
    ]) {
      const mixed = as(`127.0.0.1:${port}`, origin);
      const read = await mixed('GET', '/console/api/exchanges');
      expect([read.status, read.body.detail], origin).toEqual([403, `Origin '${origin}' is not this console's`]);
      expect((await mixed('POST', '/console/api/panels/sandbox/faults', FAULT)).status, origin).toBe(403);
      expect((await mixed('POST', '/console/api/gateway/try', TRY)).status, origin).toBe(403);
    }
    expect((await faultsOnHub()).some((f: any) => f.path === '^/never$')).toBe(false);
  });
});

describe('console host names from the settings', () => {
  let engine: RunningEngine;
  let root: string;
  const env = (hosts: string[]) =>
    `engine:\n  console:\n    enabled: true\n    allowedHosts: ${JSON.stringify(hosts)}\n`;
  const read = (host: string) => rawRequest(engine.url, 'GET', '/console/api/overview', { host });

  beforeAll(async () => {
    root = tmpProject({
      'values/environments/dev.yaml': env(['console.bank.internal', 'ops.bank.internal:9443']),
      'routes/r.yaml': 'id: r\nfrom:\n  http: { method: GET, path: /r }\nsteps:\n  - set: { values: { body: "1" } }\n',
    });
    const list: EngineExtension[] = [];
    list.push(consoleExtension(() => list));
    // told to listen on 127.0.0.2: that address is one of the console's names too
    engine = await startEngine({
      routes: ['routes'],
      root,
      env: 'dev',
      host: '127.0.0.2',
      port: 0,
      logger: createLogger('silent'),
      processEnv: {},
      extensions: list,
    });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('a configured host is allowed, at its port when one is given; the listen address too; others are not', async () => {
    const p = engine.port;
    expect((await read(`console.bank.internal:${p}`)).status).toBe(200);
    expect((await read('Console.Bank.Internal')).status).toBe(200);
    expect((await read('ops.bank.internal:9443')).status).toBe(200);
    expect((await read(`ops.bank.internal:${p}`)).status).toBe(403);
    expect((await read(`127.0.0.2:${p}`)).status).toBe(200);
    expect((await read(`localhost:${p}`)).status).toBe(200);
    for (const host of [
      `evil.example:${p}`,
      `console.bank.internal.evil.example:${p}`,
      `bank.internal:${p}`,
      'console.bank.internal.',
    ]) {
      expect((await read(host)).status, host).toBe(403);
    }
    const own = await rawRequest(engine.url, 'GET', '/console/api/overview', {
      host: 'console.bank.internal',
      origin: 'https://console.bank.internal',
    });
    expect(own.status).toBe(200);
  });

  it('a reload takes the edited list', async () => {
    writeFileSync(join(root, 'values/environments/dev.yaml'), env(['other.bank.internal']));
    expect((await engine.reload('test')).ok).toBe(true);
    expect((await read('other.bank.internal')).status).toBe(200);
    expect((await read('console.bank.internal')).status).toBe(403);
  });
});
