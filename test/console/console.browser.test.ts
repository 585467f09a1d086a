// The console in a real browser against `engine run --env sandbox`: routes and the FX diagram,
// a curl-like FX call showing up live with its vendor call, a fault injected from the page
// making the next exchange retry and map to GC027, a tool called through /mcp, and a payment
// confirmed (once) and refused through the try-it form.

import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { consoleSession, hasChromium, requireChromium } from './browser.ts';
import { paymentOrder } from '../gateway/helpers.ts';
import { ibansOfUser } from '../../sandbox/platform-backend/index.ts';

requireChromium();

const FX = { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' };

// each case waits on Chromium and an engine in another process: a loaded CI machine (the rest of the
// suite runs beside it) gets 60 s per case; the "within a second" checks keep their own bounds
describe.skipIf(!hasChromium)('console in Chromium', () => {
  const s = consoleSession();

  const fx = (correlationId: string) =>
    fetch(`${s.engine.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': correlationId },
      body: JSON.stringify(FX),
    });

  it('/ leads to the console; the routes page lists every route and draws the FX route', async () => {
    const { routes } = (await (await fetch(`${s.engine.url}/console/api/routes`)).json()) as {
      routes: { id: string }[];
    };
    expect(routes.length).toBeGreaterThan(10);
    await s.page.goto(`${s.engine.url}/`);
    await s.page.waitForURL(/\/console\/$/);
    await s.page.goto(`${s.engine.url}/console/#/routes/get-exchange-rate`);
    await s.page
      .locator('.route-link')
      .nth(routes.length - 1)
      .waitFor();
    expect(
      await s.page.locator('.route-link').evaluateAll((as) => as.map((a) => a.getAttribute('data-route'))),
    ).toEqual(expect.arrayContaining(routes.map((r) => r.id)));
    expect(await s.page.locator('.route-link').count()).toBe(routes.length);
    const svg = s.page.locator('svg.diagram[data-route="get-exchange-rate"]');
    await svg.waitFor();
    // source -> validate -> to-http (vendor target) -> transform, and the on-exception branch
    expect(await svg.locator('.source text').textContent()).toBe('POST /foreign-exchange/exchange-rates');
    expect(await svg.locator('.step text').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^validate /), expect.stringMatching(/^transform /)]),
    );
    expect(await svg.locator('[data-target="hubvendor-forex"]').count()).toBe(1);
    expect(await svg.locator('.handler-label').textContent()).toContain(
      'on-exception: kind: vendor, timeout, connection',
    );
    // values with secrets masked, and the gateway tool calling the route
    await s.page.locator('a.chip', { hasText: 'getExchangeRate' }).waitFor();
    await s.page
      .locator('.diagnostics, .ok', { hasText: /No diagnostics|:\d+:\d+/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await s.shot('routes');
  }, 60_000);

  it('every diagram shows its labels whole, each inside its box', async () => {
    const { routes } = (await (await fetch(`${s.engine.url}/console/api/routes`)).json()) as {
      routes: { id: string }[];
    };
    const cut: string[] = [];
    for (const { id } of routes) {
      await s.page.goto(`${s.engine.url}/console/#/routes/${encodeURIComponent(id)}`);
      const svg = s.page.locator(`svg.diagram[data-route="${id}"]`);
      await svg.waitFor();
      cut.push(
        ...(await svg.evaluate((el, route) => {
          const out: string[] = [];
          const width = Number(el.getAttribute('width'));
          for (const g of el.querySelectorAll('g.node')) {
            const text = g.querySelector('text') as SVGTextElement;
            const rect = g.querySelector('rect')!;
            const t = text.textContent ?? '';
            if (!(g.querySelector('title')?.textContent ?? '').includes(t) || t.endsWith('…'))
              out.push(`${route}: '${t}' is cut`);
            if (text.getComputedTextLength() > rect.width.baseVal.value - 8)
              out.push(`${route}: '${t}' leaves its box`);
          }
          for (const l of el.querySelectorAll('text.branch-label, text.handler-label')) {
            const t = l.textContent ?? '';
            const b = (l as SVGTextElement).getBBox();
            if (t.endsWith('…')) out.push(`${route}: label '${t}' is cut`);
            if (b.x + b.width > width) out.push(`${route}: label '${t}' leaves the diagram`);
          }
          return out;
        }, id)),
      );
    }
    expect(cut).toEqual([]);
    await s.page.goto(`${s.engine.url}/console/#/routes/bank-directory`);
    await s.shot('route-labels');
  }, 120_000);

  it('a step in the diagram opens its source: a transform its .jsonata, another step its line of the route file', async () => {
    await s.page.goto(`${s.engine.url}/console/#/routes/bank-directory`);
    const svg = s.page.locator('svg.diagram[data-route="bank-directory"]');
    await svg.locator('g.step', { hasText: 'transform bank-directory-response.jsonata' }).click();
    const jsonata = s.page.locator(
      'section.source[data-file="routes/hubvendor-payment/bank-directory-response.jsonata"]',
    );
    await jsonata.locator('pre.source-text').waitFor();
    expect(await jsonata.locator('pre.source-text').textContent()).toContain('$');
    await svg.locator('g.step[data-path="steps[1]"]').click();
    const yaml = s.page.locator('section.source[data-file="routes/hubvendor-payment/bank-directory.yaml"]');
    await yaml.locator('.line.at').waitFor();
    expect(await yaml.locator('.line.at').textContent()).toMatch(/- set:$/);
    expect(s.page.url()).toMatch(/\?source=routes%2Fhubvendor-payment%2Fbank-directory\.yaml&line=\d+$/);
    // a step nested in a choice branch opens at its own line
    await svg.locator('g.step[data-path="steps[2].choice.when[0].steps[0]"]').click();
    await expect.poll(() => yaml.locator('.line.at').textContent()).toMatch(/- to-http:$/);
    await s.shot('route-source');
  }, 60_000);

  it("the route page shows what the route inherits: values, the client after extends with the retry count's values line, the folder's handlers; no secret", async () => {
    await s.page.goto(`${s.engine.url}/console/#/routes/get-exchange-rate`);
    const inherits = s.page.locator('article.detail[data-route="get-exchange-rate"] section.inherits');
    await inherits.waitFor();
    expect(await inherits.locator('tr[data-fact="connector"]').textContent()).toContain(
      'gc-hubvendor-foreign-exchange-connector',
    );
    expect(await inherits.locator('tr[data-fact="values"]').textContent()).toMatch(
      /foreign-exchange-v1.*from the connector document routes\/hubvendor-foreign-exchange\/connector\.yaml/,
    );
    const client = inherits.locator('.client[data-client="hubvendor"]');
    expect(await client.locator('p.muted').textContent()).toMatch(
      /extends hubvendor \(routes\/connector\.yaml\), which extends seed-http/,
    );
    const retries = await client.locator('tr[data-setting="retry.max-retries"] td').allTextContents();
    expect(retries[1]).toBe('3');
    expect(retries[2]).toMatch(/^routes\/connector\.yaml:\d+ \(seed-http\)$/);
    expect(retries[3]).toMatch(/^\{\{maximumRedeliveries\}\} values\/foreign-exchange-v1\.values\.yaml:\d+$/);
    expect(await inherits.locator('.handlers').textContent()).toMatch(
      /from the connector document routes\/hubvendor-foreign-exchange\/connector\.yaml.*when kind: vendor, timeout, connection → .*transform-hubvendor-error-details\.json/,
    );
    await s.page.goto(`${s.engine.url}/console/#/routes/submit-credit-batch`);
    const key = s.page.locator(
      'article.detail[data-route="submit-credit-batch"] tr[data-setting="static-headers.client_key"]',
    );
    await key.waitFor();
    expect(await key.locator('td').nth(1).textContent()).toMatch(/^\S{0,4}\*{4}$/);
    expect(await s.page.content()).not.toContain('sandbox-achvendor-client-key');
    await s.shot('route-inherits');
  }, 60_000);

  it('an FX call made with a plain HTTP client shows up in the exchanges list within a second, with its vendor call', async () => {
    await s.page.goto(`${s.engine.url}/console/#/exchanges`);
    await s.page.locator('.live.live').waitFor();
    const id = `console-${randomUUID()}`;
    const res = await fx(id);
    expect(res.status).toBe(200);
    const t0 = Date.now();
    const row = s.page.locator(`tr.exchange.ok[data-correlation-id="${id}"]`);
    await row.waitFor({ timeout: 1000 });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await row.locator('td').nth(4).textContent()).toBe('1'); // one vendor call
    await s.shot('exchanges');
    await row.locator('a').first().click();
    const call = s.page.locator('li[data-role="call"]');
    await call.waitFor();
    expect((await call.locator('.name').textContent())?.trim()).toBe('GET hubvendor-forex');
    expect(await call.locator('.status').textContent()).toBe('200');
    await call.locator('summary').click();
    // the vendor's answer as the span recorded it (masked body)
    expect(await call.locator('.event', { hasText: 'answer' }).textContent()).toContain('middleRate');
    await s.shot('exchange');
  }, 60_000);

  it("a step's vars show beside what it produced, masked as bodies are", async () => {
    const id = `console-vars-${randomUUID()}`;
    const res = await fetch(`${s.engine.url}/payments/bank-directory`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': id },
      body: JSON.stringify({ identificationType: 'BIC', identification: 'deut-deff xxx' }),
    });
    expect(res.status).toBe(200);
    await s.page.goto(`${s.engine.url}/console/#/exchanges/${id}`);
    const set = s.page.locator('li[data-role="step"]', { hasText: 'set' }).first();
    await set.locator('summary').click();
    const vars = set.locator('.event', { hasText: 'produced' }).locator('.attr[data-attr="vars"] pre');
    expect(JSON.parse((await vars.textContent())!)).toEqual({
      id: 'DEUTDEFFXXX',
      disablePagination: expect.any(Boolean),
    });
    await s.shot('exchange-vars');
  }, 60_000);

  it("an exchange's timeline is drawn inside its tracks, a span that ends after the exchange included", async () => {
    /** how many bars of the timeline on the page leave their track */
    const outside = () =>
      s.page
        .locator('.timeline .bar')
        .evaluateAll(
          (bars) =>
            bars
              .map((b) => [b.getBoundingClientRect(), b.firstElementChild!.getBoundingClientRect()] as const)
              .filter(([track, bar]) => bar.left < track.left - 0.5 || bar.right > track.right + 0.5).length,
        );
    // refused by their first step: steps of a fraction of a millisecond
    for (let i = 0; i < 4; i++) {
      const id = `console-quick-${randomUUID()}`;
      const res = await fetch(`${s.engine.url}/foreign-exchange/exchange-rates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-correlation-id': id },
        body: JSON.stringify({ buyCurrency: 'EURO' }),
      });
      expect(res.status).toBe(400);
      await s.page.goto(`${s.engine.url}/console/#/exchanges/${id}`);
      await s.page.locator(`.exchange-detail[data-correlation-id="${id}"] li[data-role="step"]`).first().waitFor();
      expect(await outside(), `exchange ${i}`).toBe(0);
    }
    // a 0.4 ms exchange whose step ends after it (each span's clock is read a few µs apart; whole
    // millisecond starts put it up to 1 ms later): the scale takes the step's end
    const x = { id: 'quick', correlationId: 'quick', route: 'r', name: 'POST /r', outcome: 'ok', status: 200 };
    const span = (id: string, role: string, start: number, durationMs: number, parentId?: string) => ({
      id,
      parentId,
      name: id,
      role,
      start,
      durationMs,
      failed: false,
      attributes: {},
      events: [],
    });
    await s.page.route('**/console/api/exchanges/quick', (r) =>
      r.fulfill({
        json: {
          ...x,
          traceId: 't',
          startedAt: Date.now(),
          durationMs: 0.4,
          spans: [span('e', 'exchange', 0, 0.4), span('validate', 'step', 0.35, 0.2, 'e')],
        },
      }),
    );
    await s.page.goto(`${s.engine.url}/console/#/exchanges/quick`);
    await s.page.locator('.exchange-detail[data-correlation-id="quick"] li[data-role="step"]').waitFor();
    expect(await outside()).toBe(0);
    expect(await s.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await s.page.unroute('**/console/api/exchanges/quick');
  }, 60_000);

  it("hides the sandbox's demo traffic with one switch, remembered by the browser", async () => {
    await s.page.goto(`${s.engine.url}/console/#/exchanges`);
    // the demo sends a payment every 20 s
    const demo = s.page.locator('tr.exchange[data-origin="demo"]');
    await demo.first().waitFor({ timeout: 30_000 });
    expect(await demo.first().locator('.badge.origin').textContent()).toBe('demo');
    const others = await s.page.locator('tr.exchange[data-origin=""]').count();
    expect(others).toBeGreaterThan(0);
    await s.page.locator('input[name="hide-demo"]').check();
    await expect.poll(() => demo.count()).toBe(0);
    expect(await s.page.locator('tr.exchange[data-origin=""]').count()).toBe(others);
    await s.page.reload();
    await s.page.locator('tr.exchange').first().waitFor();
    expect(await s.page.locator('input[name="hide-demo"]').isChecked()).toBe(true);
    expect(await demo.count()).toBe(0);
    await s.page.locator('input[name="hide-demo"]').uncheck();
    await demo.first().waitFor();
  }, 60_000);

  it('a 503 fault injected from the sandbox page makes the next FX exchange retry and map to GC027', async () => {
    await s.page.goto(`${s.engine.url}/console/#/sandbox`);
    const form = s.page.locator('form.fault-form');
    await form.waitFor();
    await form.locator('select[name=sim]').selectOption('hubvendor');
    await form.locator('input[name=path]').fill('^/v1/forex');
    await form.locator('input[name=status]').fill('503');
    await form.locator('input[name=times]').fill('4');
    await form.locator('button[type=submit]').click();
    await s.page.locator('tr.fault[data-sim="hubvendor"]').waitFor();
    await s.shot('sandbox');

    const id = `console-fault-${randomUUID()}`;
    const res = await fx(id);
    expect(res.status).toBe(502);
    expect((await res.json()).code).toBe('GC027');
    await s.page.goto(`${s.engine.url}/console/#/exchanges/${id}`);
    await s.page.locator('.exchange-detail .code', { hasText: 'GC027' }).waitFor();
    const calls = s.page.locator('li[data-role="call"]');
    expect(await calls.count()).toBe(4);
    // the timeline is the span tree: the exchange first, then its steps, each call under its step
    expect(await s.page.locator('.timeline > li').first().getAttribute('data-role')).toBe('exchange');
    expect(await calls.locator('.attempt').allTextContents()).toEqual([
      'attempt 1',
      expect.stringMatching(/^attempt 2, after \d/),
      expect.stringMatching(/^attempt 3, after \d/),
      expect.stringMatching(/^attempt 4, after \d/),
    ]);
    expect(await calls.locator('.status').allTextContents()).toEqual(['503', '503', '503', '503']);
    // raised as a vendor error, answered as the mapped GC027
    expect(await s.page.locator('.mapping').textContent()).toMatch(/answered.*GC027/);
    await s.shot('exchange-fault');
  }, 60_000);

  it('the try-it form calls getExchangeRate through /mcp and shows the JSON-RPC exchange', async () => {
    await s.page.goto(`${s.engine.url}/console/#/gateway/getExchangeRate`);
    const form = s.page.locator('form.try-it');
    await form.waitFor();
    // the sandbox's demo key is offered, filled in already
    expect(await form.locator('input[name=key]').inputValue()).toBe('sandbox-demo-subscription-key');
    await form.locator('select[name=tool]').selectOption('getExchangeRate');
    await form.locator('textarea[name=arguments]').fill(JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD' }));
    await form.locator('button[type=submit]').click();
    const call = s.page.locator('li.rpc-step[data-method="tools/call"]');
    await call.waitFor();
    expect(
      await s.page.locator('li.rpc-step').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-method'))),
    ).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    const text = await call.textContent();
    expect(text).toContain('getExchangeRate');
    expect(text).toContain('middleRate');
    expect(text).not.toContain('sandbox-demo-subscription-key'); // the key is shown masked
    expect(await call.locator('.badge').textContent()).toBe('200');
    // the result first, above the JSON-RPC exchange, linked to the exchange of the route it ran
    const result = s.page.locator('section.try-result[data-outcome="ok"]');
    expect(await result.locator('pre').textContent()).toContain('middleRate');
    expect(
      await s.page.evaluate(() => {
        const r = document.querySelector('section.try-result')!;
        return !!(r.compareDocumentPosition(document.querySelector('ol.rpc')!) & Node.DOCUMENT_POSITION_FOLLOWING);
      }),
    ).toBe(true);
    await s.shot('gateway');
    await result.locator('a.exchange-link').click();
    await s.page.locator('.exchange-detail h2', { hasText: 'get-exchange-rate' }).waitFor();
    expect(await s.page.locator('li[data-role="call"] .name').first().textContent()).toContain('GET hubvendor-forex');
  }, 60_000);

  it('the try-it form shows the confirmation of a payment: Confirm makes it once, Refuse makes none', async () => {
    /** the payment orders the hub simulator received with this end-to-end reference */
    const atHub = async (e2e: string) => {
      const r = await fetch(`${s.engine.url}/console/api/panels/sandbox/requests?sim=hubvendor`);
      const { requests } = (await r.json()) as { requests: { method: string; body?: unknown }[] };
      return requests.filter((q) => q.method === 'POST' && JSON.stringify(q.body ?? '').includes(e2e)).length;
    };
    await s.page.goto(`${s.engine.url}/console/#/gateway/initiatePaymentOrder`);
    const form = s.page.locator('form.try-it');
    await form.waitFor();
    await form.locator('select[name=tool]').selectOption('initiatePaymentOrder');
    await form.locator('button', { hasText: 'Sandbox token for alice' }).click();
    await expect.poll(() => form.locator('input[name=token]').inputValue()).toMatch(/^eyJ/);

    const pay = paymentOrder('BROWSER-CONFIRM', '12.50', '2030-02-01');
    const e2e = pay.transferTransactionInformation.endToEndIdentification;
    await form.locator('textarea[name=arguments]').fill(JSON.stringify(pay));
    await form.locator('button[type=submit]').click();
    const ask = s.page.locator('section.try-confirm');
    await ask.waitFor();
    // what the user confirms, accounts masked; nothing done yet
    const debtor = ibansOfUser('alice')[0]!;
    expect(await ask.locator('h4').textContent()).toContain('Confirm: Initiate a payment');
    expect(await ask.locator('ul.confirm-lines li').allTextContents()).toEqual([
      'Amount: 12.50 EUR',
      `From account: ${debtor.slice(0, 4)}****${debtor.slice(-4)}`,
      'To: Jane Doe, FR14****2606',
      'Execution date: 2030-02-01',
    ]);
    expect(await atHub(e2e)).toBe(0);
    await s.shot('gateway-confirm');

    await ask.locator('button[data-decision=confirm]').click();
    const result = s.page.locator('section.try-result[data-outcome="ok"]');
    await result.waitFor();
    expect(await result.locator('pre').textContent()).toMatch(/"bankReferenceId": "PO/);
    expect(await ask.count()).toBe(0);
    expect(
      await s.page.locator('li.rpc-step').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-method'))),
    ).toEqual(['tools/call', 'tools/call']);
    expect(await atHub(e2e)).toBe(1);

    // another payment, refused: the gateway's refusal is shown, the hub sees nothing
    const refused = paymentOrder('BROWSER-REFUSE', '13.50', '2030-02-02');
    await form.locator('textarea[name=arguments]').fill(JSON.stringify(refused));
    await form.locator('button[type=submit]').click();
    await ask.waitFor();
    await ask.locator('button[data-decision=refuse]').click();
    const refusal = s.page.locator('section.try-result[data-outcome="error"]');
    await refusal.waitFor();
    expect(await refusal.locator('pre').textContent()).toContain('The user did not confirm (decline)');
    expect(await atHub(refused.transferTransactionInformation.endToEndIdentification)).toBe(0);
    expect(await atHub(e2e)).toBe(1);
  }, 60_000);
});
