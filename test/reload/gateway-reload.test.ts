// The gateway follows a reload: a tool whose route changed calls the new route, and a tool taken
// out of its tools file is no longer listed or callable. On a copy of the FX, platform backend
// and gateway folders, on the sandbox.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startGateway, type GatewayTestEngine } from '../gateway/helpers.ts';

const FX = { buyCurrency: 'EUR', sellCurrency: 'USD' };
let e: GatewayTestEngine;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'engine-reload-gw-'));
  // every route folder (the gateway tells a tool of an undeployed route from a mistake by them),
  // without route tests: only the three folders of ROUTES load
  for (const dir of ['values', 'schemas', 'transforms', 'routes'])
    cpSync(dir, join(root, dir), { recursive: true, filter: (src) => !/[/\\]tests$/.test(src) });
  e = await startGateway({}, { root });
});

afterAll(async () => {
  await e?.close();
});

describe('the gateway across a reload', () => {
  it('a tool calls the reloaded route', async () => {
    const before = await e.rpc('tools/call', { name: 'getExchangeRate', arguments: FX });
    expect(before.body.result.structuredContent.quotationCode).not.toBe('RELOADED');
    const file = join(root, 'routes/hubvendor-foreign-exchange/exchange-rate-response.jsonata');
    writeFileSync(file, readFileSync(file, 'utf8').replace('vars.rate.body.quotationCode', '"RELOADED"'));
    expect(await e.reload()).toMatchObject({ ok: true, changed: ['get-exchange-rate'] });
    const after = await e.rpc('tools/call', { name: 'getExchangeRate', arguments: FX });
    expect(after.body.result).toMatchObject({ isError: false, structuredContent: { quotationCode: 'RELOADED' } });
  });

  it('a tool removed from its file is no longer listed or callable', async () => {
    const names = async () =>
      ((await e.rpc('tools/list', {})).body.result.tools as { name: string }[]).map((t) => t.name);
    expect(await names()).toContain('listProducts');
    const file = join(root, 'routes/gateway/public-tools.yaml');
    const doc = parse(readFileSync(file, 'utf8')) as { tools: { name: string }[] };
    doc.tools = doc.tools.filter((t) => t.name !== 'listProducts');
    writeFileSync(file, stringify(doc));
    expect(await e.reload()).toMatchObject({ ok: true });
    expect(await names()).not.toContain('listProducts');
    expect(await names()).toContain('getExchangeRate');
    const call = await e.rpc('tools/call', { name: 'listProducts', arguments: {} });
    expect(call.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: listProducts' });
  });
});
