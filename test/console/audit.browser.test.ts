// The console's Audit page in Chromium against `engine run --env sandbox` whose durable store is a
// database of its own on the machine's PostgreSQL: a tool call and a refusal sent to /mcp are
// listed newest first and filtered; the chain shows as verified, and as broken, naming the record,
// once a row is edited by hand in SQL. The subscription key is nowhere on the s.page.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { consoleSession, hasChromium, requireChromium } from './browser.ts';

requireChromium();

const KEY = 'sandbox-demo-subscription-key';

describe.skipIf(!hasChromium)('Audit page in Chromium', () => {
  const s = consoleSession({ database: 'audit' });
  let sql: pg.Client;
  const rows = () => s.page.locator('tr.audit-row');
  const kinds = () => rows().evaluateAll((trs) => trs.map((tr) => tr.className.replace('audit-row ', '')));

  const mcp = (key: string, body: unknown) =>
    fetch(`${s.engine.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'ocp-gateway-subscription-key': key,
      },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    sql = new pg.Client({ connectionString: s.databaseUrl });
    await sql.connect();
    const call = await mcp(KEY, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'getExchangeRate', arguments: { sellCurrency: 'USD', buyCurrency: 'EUR' } },
    });
    expect(call.status).toBe(200);
    expect((await mcp('a-wrong-key', { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(401);
    // the trail writes in the background
    for (let i = 0; ; i++) {
      const r = await sql.query('SELECT count(*)::int AS n FROM engine.gateway_audit').catch(() => null);
      if (r?.rows[0].n === 2) break;
      if (i > 200) throw new Error('the audit trail did not write the two decisions');
      await new Promise((res) => setTimeout(res, 100));
    }
  }, 30_000);

  afterAll(async () => {
    await sql?.end();
  });

  it('lists the decisions, filters them, and says whether the chain verifies', async () => {
    await s.page.goto(`${s.engine.url}/console/#/audit`);
    await s.page.locator('[data-chain="verified"]').waitFor();
    expect(await s.page.locator('.chain').textContent()).toMatch(/chain verified\s*2 records · head: record 2/);
    await rows().nth(1).waitFor();
    expect(await kinds()).toEqual(['refusal', 'call']);
    expect(await rows().nth(0).textContent()).toContain('invalid_key');
    expect(await rows().nth(1).textContent()).toContain('getExchangeRate');
    await s.shot('audit');
    await s.page.locator('.audit form.filters select[name=kind]').selectOption('call');
    await expect.poll(kinds).toEqual(['call']);
    await s.page.locator('.audit form.filters input[name=tool]').fill('nope');
    await s.page.locator('.audit form.filters input[name=tool]').press('Tab');
    await s.page.locator('text=No audit record matches').waitFor();
    expect(await s.page.content()).not.toContain(KEY);

    await sql.query(`UPDATE engine.gateway_audit SET outcome = 'ok' WHERE seq = 2`);
    await s.page.locator('.audit form.filters button', { hasText: 'Refresh' }).click();
    await s.page.locator('[data-chain="broken"]').waitFor();
    expect(await s.page.locator('.chain .problems').textContent()).toMatch(/^record 2: hash mismatch/);
  }, 60_000);
});
