// The Clients page and the Routes page's client badges in Chromium against `engine run --env
// sandbox`: a one-click outage of the payment hub simulator on the Sandbox page, FX calls opening
// the FX client's breaker (shown live, without reloading the page), then the outage ended, the
// breaker going half-open after the shipped 10 s by itself and closing on the next call's probe.

import { describe, expect, it } from 'vitest';
import { consoleSession, hasChromium, requireChromium } from './browser.ts';

requireChromium();

const FX_CLIENT = 'hubvendor-foreign-exchange/hubvendor';

describe.skipIf(!hasChromium)('clients page in Chromium', () => {
  const s = consoleSession();

  const fx = () =>
    fetch(`${s.engine.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }),
    });
  const row = (client: string) => s.page.locator(`tr.client[data-client="${client}"]`);
  /** the Clients page, its live stream connected (transitions come over it) */
  const clientsPage = async () => {
    await s.page.goto(`${s.engine.url}/console/#/clients`);
    await s.page.locator('.live.live').waitFor();
    await row(FX_CLIENT).waitFor();
  };
  const routeBadge = (route: string) =>
    s.page.locator(`article.detail[data-route="${route}"] .route-clients .badge.breaker[data-client="${FX_CLIENT}"]`);

  it('lists every client closed, with bulkhead and budget; the FX route shows its client closed', async () => {
    await clientsPage();
    const { clients } = (await (await fetch(`${s.engine.url}/console/api/clients`)).json()) as {
      clients: { client: string }[];
    };
    expect(await s.page.locator('tr.client').count()).toBe(clients.length);
    expect(await s.page.locator('tr.client[data-state="closed"]').count()).toBeGreaterThan(5);
    expect(await row(FX_CLIENT).locator('.badge.breaker').textContent()).toBe('closed');
    expect(await row(FX_CLIENT).locator('.budget .window').textContent()).toMatch(/^\d+ calls, \d+ retries in 10 s$/);
    expect(await row(FX_CLIENT).locator('.budget .refused').textContent()).toBe('0 retries refused');
    expect(await row(FX_CLIENT).locator('.settings').textContent()).toBe(
      'opens after 5 failures in a row or 50% of 20+ calls in 30 s; probe after 10 s',
    );
    expect(await row(FX_CLIENT).locator('a.chip').allTextContents()).toEqual(['get-exchange-rate']);
    const bulkhead = row('screenvendor-screening/screenvendor').locator('.bulkhead');
    expect([await bulkhead.locator('.active').textContent(), await bulkhead.locator('.queued').textContent()]).toEqual([
      '0 of 64 active',
      '0 of 64 queued',
    ]);
    await s.page.goto(`${s.engine.url}/console/#/routes/get-exchange-rate`);
    await routeBadge('get-exchange-rate').waitFor();
    expect(await routeBadge('get-exchange-rate').textContent()).toBe(`${FX_CLIENT}: closed`);
  }, 60_000);

  it('one click on the Sandbox page makes the hub answer 503; FX calls open the breaker, shown live', async () => {
    await s.page.goto(`${s.engine.url}/console/#/sandbox`);
    await s.page.locator('button.outage-start[data-sim="hubvendor"]').click();
    await s.page.locator('tr.fault[data-sim="hubvendor"]').waitFor();
    expect(await s.page.locator('tr.fault[data-sim="hubvendor"] code').textContent()).toBe('status=503');
    await s.shot('sandbox-outage');

    await clientsPage();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fx()).status);
    // the second call's first attempt opens the breaker: the hub's 503 mapped, then refusals
    expect(statuses).toEqual([502, 502, 503, 503, 503, 503]);
    const open = s.page.locator(`tr.client[data-client="${FX_CLIENT}"][data-state="open"]`);
    await open.waitFor({ timeout: 5000 });
    expect(await open.locator('.badge.breaker').textContent()).toMatch(/^open since \d{1,2}:\d\d:\d\d/);
    expect(await open.locator('.cause').textContent()).toBe('hubvendor-forex answered 503');
    expect(await open.locator('.probe').textContent()).toMatch(/^in (10|[1-9]) s$/);
    // the first call's three retries (the second call takes none: its failure opened the breaker);
    // the refused calls count as calls
    // (the counts reload when the exchanges have ended)
    await expect.poll(() => open.locator('.budget .window').textContent()).toMatch(/^6 calls, 3 retries in 10 s$/);
    // the payment connector's client of the same vendor is not affected
    expect(await row('hubvendor-payment/hubvendor').getAttribute('data-state')).toBe('closed');
    await s.shot('clients-open');

    await s.page.goto(`${s.engine.url}/console/#/routes/get-exchange-rate`);
    await routeBadge('get-exchange-rate').waitFor();
    expect(await routeBadge('get-exchange-rate').textContent()).toMatch(
      new RegExp(`^${FX_CLIENT}: open since \\d{1,2}:\\d\\d:\\d\\d`),
    );
    // the route list marks the route whose client is not closed, and no other
    expect(await s.page.locator('a.route-link[data-route="get-exchange-rate"] .badge.breaker.open').count()).toBe(1);
    expect(await s.page.locator('a.route-link .badge.breaker').count()).toBe(1);
    await s.shot('routes-client-open');
  }, 60_000);

  it('the outage ended, the breaker goes half-open by itself after 10 s and closes on the next call', async () => {
    await s.page.goto(`${s.engine.url}/console/#/sandbox`);
    await s.page.locator('button.outage-end[data-sim="hubvendor"]').click();
    await s.page.locator('.fault-form').waitFor();
    await expect.poll(() => s.page.locator('tr.fault[data-sim="hubvendor"]').count()).toBe(0);

    await clientsPage();
    // no call is made meanwhile: the transition comes over the live stream from the breaker's timer
    const half = s.page.locator(`tr.client[data-client="${FX_CLIENT}"][data-state="half-open"]`);
    await half.waitFor({ timeout: 15_000 });
    expect(await half.locator('.badge.breaker').textContent()).toMatch(/^half-open since /);
    await s.shot('clients-half-open');

    expect((await fx()).status).toBe(200);
    const closed = s.page.locator(`tr.client[data-client="${FX_CLIENT}"][data-state="closed"]`);
    await closed.waitFor({ timeout: 5000 });
    expect(await closed.locator('.badge.breaker').textContent()).toBe('closed');
    // why it last opened stays shown
    expect(await closed.locator('.cause').textContent()).toBe('hubvendor-forex answered 503');
    await s.shot('clients-closed');

    await s.page.goto(`${s.engine.url}/console/#/routes/get-exchange-rate`);
    await routeBadge('get-exchange-rate').waitFor();
    expect(await routeBadge('get-exchange-rate').textContent()).toBe(`${FX_CLIENT}: closed`);
    expect(await s.page.locator('a.route-link .badge.breaker').count()).toBe(0);
  }, 60_000);
});
