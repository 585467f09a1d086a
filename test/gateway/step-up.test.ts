// Step-up (RFC 9470) as the confirmation of a money-moving tool: with `step-up: 300`, a call whose
// token says the user signed in at most 300 s ago runs at once, in any revision; an older sign-in,
// or a token without auth_time, is 401 with WWW-Authenticate error="insufficient_user_authentication"
// and max_age, nothing reaches the hub; a step-up without confirm: required is a lint error.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentOrder, startGateway, type GatewayTestEngine } from './helpers.ts';

const run = promisify(execFile);
let e: GatewayTestEngine;
let dir: string;
const ROUTES = (gateway: string) => [gateway, 'routes/platform-backend', 'routes/hubvendor-payment'];

/** A copy of the gateway's tools with `extra` lines after initiatePaymentOrder's `confirm: required`. */
function toolsCopy(replace: (text: string) => string): string {
  const gateway = join(dir, `gateway-${Math.random().toString(36).slice(2, 8)}`);
  cpSync('routes/gateway', gateway, { recursive: true });
  const file = join(gateway, 'user-tools.yaml');
  const before = readFileSync(file, 'utf8');
  const after = replace(before);
  expect(after).not.toBe(before);
  writeFileSync(file, after);
  return gateway;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-step-up-'));
  const gateway = toolsCopy((t) =>
    t.replace(/(  - name: initiatePaymentOrder\n(?:    .*\n)*?    confirm: required\n)/, '$1    step-up: 300\n'),
  );
  const values = join(dir, 'values');
  cpSync('values', values, { recursive: true });
  await run(
    process.execPath,
    [
      'bin/engine.js',
      'tools',
      'approve',
      'initiatePaymentOrder',
      '--env',
      'sandbox',
      '--values',
      values,
      '--routes',
      ROUTES(gateway).join(','),
      '--unaudited',
    ],
    { timeout: 60_000 },
  );
  e = await startGateway({ 'gateway.rateLimits.anonymous': '1000' }, { routes: ROUTES(gateway), valuesDir: values });
}, 120_000);
afterAll(async () => {
  await e?.close();
});

const order = (ref: string) => paymentOrder(ref, '12.00', '2030-01-15');
/** the hub's payment requests of this test (not the sandbox's demo payments, DEMO-...) */
const hubPayments = () =>
  e.sandbox.hubvendor.server
    .requests()
    .filter((q) => q.method === 'POST' && JSON.stringify(q.body ?? '').includes('STEPUP-'));
const signedInAgo = (seconds: number) =>
  e.idp.sign({ sub: 'alice', claims: { auth_time: Math.floor(Date.now() / 1000) - seconds } });
const call = (token: string, ref: string) =>
  e.rpc('tools/call', { name: 'initiatePaymentOrder', arguments: order(ref) }, { authorization: `Bearer ${token}` });

describe('step-up as the confirmation', () => {
  it('a sign-in 10 s old confirms: the payment is made at once, without a confirmation round trip', async () => {
    const r = await call(await signedInAgo(10), 'STEPUP-FRESH');
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(false);
    expect(r.body.result.structuredContent.bankStatus).toBe('ACCEPTED');
    expect(hubPayments().filter((q) => JSON.stringify(q.body).includes('STEPUP-FRESH'))).toHaveLength(1);
  });

  it('a sign-in an hour old, or no auth_time: 401 insufficient_user_authentication with max_age, no hub call', async () => {
    for (const [token, detail] of [
      [await signedInAgo(3600), /signed in 3\d{3} s ago/],
      [await e.token('alice'), /no auth_time/],
    ] as const) {
      const before = hubPayments().length;
      const r = await call(token, 'STEPUP-STALE');
      expect(r.status).toBe(401);
      const www = r.headers.get('www-authenticate')!;
      expect(www).toMatch(/^Bearer /);
      expect(www).toContain('error="insufficient_user_authentication"');
      expect(www).toContain('max_age="300"');
      expect(www).toContain('resource_metadata="');
      expect(r.body.detail).toMatch(detail);
      expect(r.body.detail).toContain('nothing was done');
      expect(hubPayments().length).toBe(before);
    }
    const metrics = await (await fetch(`${e.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_refusals_total\{reason="insufficient_user_authentication",detail="stale"\} [1-9]/);
  });

  it('step-up without confirm: required is a lint error at its line', async () => {
    const gateway = toolsCopy((t) =>
      t.replace(/(  - name: getMyAccountBalance\n(?:    .*\n)*?    security: bearer\n)/, '$1    step-up: 300\n'),
    );
    const r = await run(process.execPath, ['bin/engine.js', 'lint', ...ROUTES(gateway)], { timeout: 60_000 }).then(
      (x) => ({ code: 0, out: x.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /user-tools\.yaml:\d+:\d+ tool 'getMyAccountBalance': step-up is a way to confirm: it needs confirm: required and security: bearer/,
    );
  });
});
