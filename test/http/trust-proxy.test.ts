// engine.server.trustProxy (the proxies in front of the listener) decides whose X-Forwarded-For
// names the client, for the gateway's per-IP limits too (as gateway.trustedProxies does).
import { it, expect, afterAll } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type GatewayTestEngine } from '../gateway/helpers.ts';

let e: GatewayTestEngine | undefined;
afterAll(async () => {
  await e?.close();
});

it('a client behind a proxy listed in engine.server.trustProxy is limited by its own address', async () => {
  const values = join(mkdtempSync(join(tmpdir(), 'engine-values-')), 'values');
  cpSync('values', values, { recursive: true });
  const env = join(values, 'environments', 'sandbox.yaml');
  writeFileSync(
    env,
    readFileSync(env, 'utf8').replace(/^engine:\n  server:\n/m, "engine:\n  server:\n    trustProxy: ['127.0.0.1']\n"),
  );
  expect(readFileSync(env, 'utf8')).toContain("trustProxy: ['127.0.0.1']");
  e = await startGateway({ 'gateway.rateLimits.anonymous': '2' }, { valuesDir: values });
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  expect((await e.rpc('ping', undefined, from('203.0.113.7'))).status).toBe(200);
  expect((await e.rpc('ping', undefined, from('203.0.113.7'))).status).toBe(200);
  expect((await e.rpc('ping', undefined, from('203.0.113.7'))).status).toBe(429);
  // another client behind the same proxy has its own budget
  expect((await e.rpc('ping', undefined, from('203.0.113.8'))).status).toBe(200);
});
