// Tool approval (a changed or unapproved tool is not served, and lint says so), lint of tool
// files, and the gateway CLI commands (tools approve, keys create, token).

import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicKey } from 'node:crypto';
import { lintProject } from '../../engine/engine.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { KeyRing } from '../../engine/gateway/keys.ts';
import { parseKeyHash } from '../../engine/gateway/config.ts';
import { TokenVerifier } from '../../engine/gateway/jwt.ts';
import { SANDBOX_AUDIENCE, SANDBOX_ISSUER, SANDBOX_PRIVATE_JWK } from '../../sandbox/idp/sandbox-key.ts';
import { ROUTES, startGateway, type GatewayTestEngine } from './helpers.ts';

const run = promisify(execFile);
const engineCli = (...args: string[]) => run(process.execPath, ['bin/engine.js', ...args], { timeout: 30_000 });

function valuesCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-values-'));
  cpSync('values', dir, { recursive: true });
  return dir;
}

describe('approvals', () => {
  let values: string;
  let e: GatewayTestEngine;
  beforeAll(async () => {
    values = valuesCopy();
    const file = join(values, 'gateway-approvals.yaml');
    const text = readFileSync(file, 'utf8');
    // getExchangeRate "changed" since approval (its digest differs); listProducts never approved
    const fx = /(getExchangeRate:\n\s+digest: sha256:)([0-9a-f]{64})/.exec(text)!;
    writeFileSync(
      file,
      text
        .replace(fx[0], fx[1] + '0'.repeat(64))
        .replace(/  listProducts:\n\s+digest: [^\n]+\n\s+approvedAt: [^\n]+\n/, ''),
    );
    e = await startGateway({ 'gateway.rateLimits.anonymous': '1000' }, { valuesDir: values });
  });
  afterAll(async () => {
    await e?.close();
  });

  it('a changed or unapproved tool is not served', async () => {
    const list = await e.rpc('tools/list');
    expect(list.body.result.tools.map((t: any) => t.name).sort()).toEqual([
      'getMyAccountBalance',
      'getMyTransactionHistory',
    ]);
    const call = await e.rpc('tools/call', {
      name: 'getExchangeRate',
      arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' },
    });
    expect(call.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: getExchangeRate' });
  });

  it('lint says which tool changed and how to approve it', async () => {
    const diags = await lintProject({
      routes: ROUTES,
      valuesDir: values,
      extensions: [gatewayExtension({ audit: false })],
      logger: createLogger('silent'),
    });
    expect(diags).toHaveLength(1);
    expect(diags[0].file).toBe('routes/gateway/public-tools.yaml');
    expect(diags[0].message).toContain("tool 'getExchangeRate' changed since it was approved for 'sandbox'");
    expect(diags[0].message).toContain('engine tools approve getExchangeRate --env sandbox');
  });

  it('engine tools approve records the digest; lint is clean again', async () => {
    const { stdout } = await engineCli(
      'tools',
      'approve',
      'getExchangeRate',
      'listProducts',
      '--env',
      'sandbox',
      '--values',
      values,
      '--routes',
      ROUTES.join(','),
      // the audited approval: test/gateway/audit-cli.test.ts (here the project's store is not the test's)
      '--unaudited',
    );
    expect(stdout).toMatch(/approved getExchangeRate for sandbox: sha256:[0-9a-f]{64}/);
    const diags = await lintProject({
      routes: ROUTES,
      valuesDir: values,
      extensions: [gatewayExtension({ audit: false })],
      logger: createLogger('silent'),
    });
    expect(diags).toEqual([]);
    expect(readFileSync(join(values, 'gateway-approvals.yaml'), 'utf8')).toContain('# Tool approvals');
  }, 40_000);

  it('the committed approvals match the shipped tools (lint of the repository)', async () => {
    const diags = await lintProject({
      routes: ROUTES,
      extensions: [gatewayExtension({ audit: false })],
      logger: createLogger('silent'),
    });
    expect(diags).toEqual([]);
  });
});

describe('lint of tool files', () => {
  it('a tool whose route is not loaded is a diagnostic, not a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-tools-'));
    writeFileSync(
      join(dir, 'tools.yaml'),
      [
        'tools:',
        '  - name: initiatePayment',
        '    description: pay',
        '    security: bearer',
        '    route: payment-initiate',
        '  - name: bad name',
        '    description: x',
        '    security: maybe',
        '    route: get-exchange-rate',
      ].join('\n') + '\n',
    );
    const diags = await lintProject({
      routes: [dir, 'routes/hubvendor-foreign-exchange'],
      extensions: [gatewayExtension({ audit: false })],
      logger: createLogger('silent'),
    });
    const text = diags.map((d) => `${d.line}:${d.message}`).join('\n');
    expect(text).toMatch(/security|name/);
    writeFileSync(
      join(dir, 'tools.yaml'),
      'tools:\n  - name: initiatePayment\n    description: pay\n    security: bearer\n    route: payment-initiate\n',
    );
    const d2 = await lintProject({
      routes: [dir, 'routes/hubvendor-foreign-exchange'],
      extensions: [gatewayExtension({ audit: false })],
      logger: createLogger('silent'),
    });
    expect(d2).toHaveLength(1);
    expect(d2[0]).toMatchObject({ line: 5 });
    expect(d2[0].message).toContain(
      "tool 'initiatePayment' targets route 'payment-initiate', which no route file defines",
    );
  });

  it("path-params must name exactly the route's path parameters, none of them a body property", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-tools-'));
    const lint = async (tools: string) => {
      writeFileSync(join(dir, 'tools.yaml'), `tools:\n${tools}`);
      const diags = await lintProject({
        routes: [dir, 'routes/hubvendor-payment'],
        extensions: [gatewayExtension({ audit: false })],
        logger: createLogger('silent'),
      });
      return diags.map((d) => `${d.line}:${d.message}`).join('\n');
    };
    const tool = (extra: string) =>
      `  - name: cancelIt\n    description: cancel\n    security: bearer\n    route: cancel-payment\n    input-schema: schemas/payments/payment-cancellation-request.schema.json\n${extra}`;
    // the route reads {externalReferenceNo}: without path-params the tool could never fill it
    expect(await lint(tool(''))).toContain(
      "route 'cancel-payment' takes the path parameter {externalReferenceNo} (its path is /payments/{externalReferenceNo}/cancel); add path-params",
    );
    expect(await lint(tool('    path-params:\n      externalReferenceN0: the reference\n'))).toContain(
      "has no path parameter 'externalReferenceN0' (its path is /payments/{externalReferenceNo}/cancel); did you mean 'externalReferenceNo'?",
    );
    expect(await lint(tool('    path-params:\n      cancellationType: clash\n'))).toContain(
      "has no path parameter 'cancellationType'",
    );
    expect(await lint(tool('    path-params:\n      externalReferenceNo: the reference\n'))).toBe('');
    // a schema file named with a typo: the file meant
    expect(
      await lint(
        tool('    path-params:\n      externalReferenceNo: the reference\n').replace(
          'payment-cancellation-request',
          'payment-cancelation-request',
        ),
      ),
    ).toContain(
      "file not found: schemas/payments/payment-cancelation-request.schema.json; did you mean 'schemas/payments/payment-cancellation-request.schema.json'?",
    );
    // a path parameter may not hide a body property of the same name
    const modify =
      '  - name: modifyIt\n    description: modify\n    security: bearer\n    route: modify-payment-order\n    path-params:\n      externalReferenceNo: ref\n';
    expect(await lint(modify)).toBe('');
    writeFileSync(
      join(dir, 'args.schema.json'),
      JSON.stringify({ type: 'object', properties: { externalReferenceNo: { type: 'string' } } }),
    );
    expect(
      await lint(
        tool('    path-params:\n      externalReferenceNo: the reference\n').replace(
          'schemas/payments/payment-cancellation-request.schema.json',
          join(dir, 'args.schema.json'),
        ),
      ),
    ).toContain("'externalReferenceNo' is both a path parameter and a body property");
    const notHttp =
      '  - name: submitIt\n    description: x\n    security: bearer\n    route: achvendor-validate-batch\n    path-params:\n      batchId: the batch\n';
    writeFileSync(join(dir, 'tools.yaml'), `tools:\n${notHttp}`);
    const d = await lintProject({
      routes: [dir, 'routes/achvendor-batch-payment'],
      extensions: [gatewayExtension({ audit: false })],
      logger: createLogger('silent'),
    });
    expect(d.map((x) => x.message).join('\n')).toContain(
      "route 'achvendor-validate-batch' has no path parameter 'batchId' (it is not an HTTP route and takes no path parameters)",
    );
  });
});

describe('CLI', () => {
  it('engine keys create prints a key once and the hash entry that matches it', async () => {
    const { stdout } = await engineCli(
      'keys',
      'create',
      '--name',
      'crm-agent',
      '--env',
      'production',
      '--tools',
      'getExchangeRate,listProducts',
    );
    const key = /^\s+(gk_[A-Za-z0-9_-]{43})$/m.exec(stdout)![1];
    const hash = /primary: (sha256:[0-9a-f]{64})/.exec(stdout)![1];
    expect(stdout).toContain('    production:\n      crm-agent:');
    expect(stdout).toContain('tools: [getExchangeRate, listProducts]');
    const ring = new KeyRing([{ name: 'crm-agent', hashes: [parseKeyHash(hash)!], tools: [] }]);
    expect(ring.match(key)?.name).toBe('crm-agent');
    expect(ring.match(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))).toBeUndefined();
  }, 40_000);

  it('engine token --sub alice mints a token the sandbox accepts', async () => {
    const { stdout } = await engineCli('token', '--sub', 'alice', '--ttl', '600');
    const token = stdout.trim();
    const { d, p, q, dp, dq, qi, ...pub } = SANDBOX_PRIVATE_JWK;
    void d;
    void p;
    void q;
    void dp;
    void dq;
    void qi;
    const pem = createPublicKey({ key: { ...pub }, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    const v = new TokenVerifier(
      {
        issuer: SANDBOX_ISSUER,
        audience: [SANDBOX_AUDIENCE],
        publicKeyPem: pem,
        algorithms: ['RS256'],
        clockToleranceSeconds: 5,
        jwksCooldownSeconds: 30,
        jwksMaxAgeSeconds: 600,
        tokenCacheSize: 10,
      },
      createLogger('silent'),
    );
    const t = await v.verify(token);
    expect(t.sub).toBe('alice');
    expect(t.exp - Date.now()).toBeLessThanOrEqual(600_000);
    await expect(engineCli('token', '--sub', 'alice', '--env', 'production')).rejects.toThrow(
      /not a sandbox environment/,
    );
  }, 40_000);
});
