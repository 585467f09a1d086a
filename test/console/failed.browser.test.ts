// The console's Failed page in Chromium against `engine run --env sandbox` whose durable store is a
// database of its own on the machine's PostgreSQL: records written to that store directly are
// listed newest first and filtered, one opens with its facts and its input (attacker text in a
// body stays text), one is replayed and one discarded by the operator the page asked for, bulk
// discard confirms a dry-run count, and the history says who did what.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import type { DurableStore, FailedExchange } from '../../engine/store/durable.ts';
import { sample } from '../store/helpers.ts';
import { consoleSession, hasChromium, requireChromium } from './browser.ts';

requireChromium();

const ROUTE = 'payment-status-inbound';
const ATTACK = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

describe.skipIf(!hasChromium)('Failed page in Chromium', () => {
  const s = consoleSession({ database: 'failed' });
  let store: DurableStore;
  const rec: Record<string, FailedExchange> = {};
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
  const rows = () => s.page.locator('tr.failed-row');
  const rowIds = () => rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));

  /** A payment status message the route takes (its test's first case), failed `m` minutes ago. */
  const message = (id: string, m: number, over: Parameters<typeof sample>[0] = {}) =>
    sample({
      route: ROUTE,
      code: 'GC027',
      detail: 'the event hub refused the event',
      cause: 'event hub answered 503 four times',
      body: JSON.stringify({
        paymentOrderId: `PO-${id}`,
        endToEndReference: `E2E-${id}`,
        status: 'REJECTED',
        statusReasonCode: 'AC04',
        statusDateTime: '2026-11-23T10:00:00Z',
      }),
      headers: { 'message-id': `msg-${id}`, 'content-type': 'application/json' },
      context: { messageId: `msg-${id}`, queue: 'payment-status', contentType: 'application/json' },
      correlationId: `corr-${id}`,
      firstAt: minutesAgo(m + 1),
      lastAt: minutesAgo(m),
      ...over,
    });

  beforeAll(async () => {
    store = await openPostgresStore({ url: s.databaseUrl!, schema: 'engine', poolSize: 2 });
    rec.good = await store.recordFailed(message('good', 30, { routeVersion: 'sha256:console-test' }));
    rec.bad = await store.recordFailed(
      message('bad', 20, {
        code: 'VALIDATION_FAILED',
        detail: 'body/status: must be one of the allowed values',
        body: JSON.stringify({ paymentOrderId: 'PO-bad', status: 'LOST', statusDateTime: '2026-11-23T10:00:00Z' }),
      }),
    );
    rec.attack = await store.recordFailed(
      message('attack', 10, {
        code: 'VALIDATION_FAILED',
        detail: `not JSON: ${ATTACK}`,
        cause: ATTACK,
        body: ATTACK,
        headers: { 'message-id': 'msg-attack', 'x-note': ATTACK },
      }),
    );
    rec.cron = await store.recordFailed(
      sample({
        route: 'sandbox-demo-payments',
        source: 'cron',
        code: 'GC500',
        body: undefined,
        headers: {},
        correlationId: 'corr-cron',
        firstAt: minutesAgo(5),
        lastAt: minutesAgo(5),
      }),
    );
  }, 30_000);

  afterAll(async () => {
    await store?.close();
  });

  it('asks the operator once, counts the open records in the navigation, lists them newest first and filters them', async () => {
    await s.page.goto(`${s.engine.url}/console/#/failed`);
    await s.page.locator('a[data-page="failed"] .count', { hasText: '4' }).waitFor();
    await s.page.locator('form.operator input[name=operator]').fill('alice');
    await s.page.locator('form.operator button[type=submit]').click();
    await s.page.locator('[data-operator="alice"]').first().waitFor();
    await rows().nth(3).waitFor();
    expect(await rowIds()).toEqual([rec.cron!.id, rec.attack!.id, rec.bad!.id, rec.good!.id]);
    expect(await s.page.locator('.summary').textContent()).toMatch(/4 matching · 4 open in all/);
    // a long detail is shown whole, wrapped: never cut with an ellipsis
    const detail = rows().nth(1).locator('td.detail');
    expect(await detail.textContent()).toBe(`not JSON: ${ATTACK}`);
    expect(await detail.evaluate((td) => td.scrollWidth <= td.clientWidth && td.scrollHeight <= td.clientHeight)).toBe(
      true,
    );
    // the correlation id links to the Exchanges page's search, as elsewhere in the console
    expect(await rows().first().locator('a', { hasText: 'corr-cron' }).getAttribute('href')).toBe(
      '#/exchanges?correlationId=corr-cron',
    );

    await s.page.locator('.failed form.filters input[name=route]').fill(ROUTE);
    await s.page.locator('.failed form.filters input[name=route]').press('Tab');
    await expect.poll(rowIds).toEqual([rec.attack!.id, rec.bad!.id, rec.good!.id]);
    await s.page.locator('.failed form.filters input[name=code]').fill('VALIDATION_FAILED');
    await s.page.locator('.failed form.filters input[name=code]').press('Tab');
    await expect.poll(rowIds).toEqual([rec.attack!.id, rec.bad!.id]);
    await s.page.locator('.failed form.filters select[name=since]').selectOption('15m');
    await expect.poll(rowIds).toEqual([rec.attack!.id]);
    await s.shot('failed');

    // the name is kept: a new visit does not ask again
    await s.page.reload();
    await s.page.locator('[data-operator="alice"]').first().waitFor();
    expect(await s.page.locator('form.operator').count()).toBe(0);
  }, 60_000);

  it("shows one record's facts and input; attacker text in a body, header, cause or detail stays text", async () => {
    await s.page.goto(`${s.engine.url}/console/#/failed/${rec.attack!.id}`);
    const detail = s.page.locator(`article.failed-detail[data-id="${rec.attack!.id}"]`);
    await detail.waitFor();
    expect(await detail.locator('pre.body').textContent()).toBe(ATTACK);
    expect(await detail.locator('pre.headers').textContent()).toContain('onerror');
    expect(await detail.locator('tr[data-fact="cause"]').textContent()).toContain(ATTACK);
    expect(await detail.locator('tr[data-fact="detail"]').textContent()).toContain(ATTACK);
    expect(await s.page.locator('img, main script').count()).toBe(0);
    expect(await s.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    await s.page.goto(`${s.engine.url}/console/#/failed/${rec.good!.id}`);
    const good = s.page.locator(`article.failed-detail[data-id="${rec.good!.id}"]`);
    await good.waitFor();
    const fact = async (name: string) => (await good.locator(`tr[data-fact="${name}"] td`).textContent())?.trim();
    expect(await fact('route')).toMatch(new RegExp(`^${ROUTE}\\s+version\\s+sha256:console-test$`));
    expect(await fact('source')).toBe('amqp');
    expect(await fact('code')).toBe('GC027');
    expect(await fact('detail')).toBe('the event hub refused the event');
    expect(await fact('cause')).toBe('event hub answered 503 four times');
    expect(await fact('attempts')).toBe('3');
    expect(await fact('traceId')).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(await good.locator('tr[data-fact="correlationId"] a').getAttribute('href')).toBe(
      '#/exchanges?correlationId=corr-good',
    );
    expect(JSON.parse((await good.locator('pre.body').textContent())!)).toMatchObject({ paymentOrderId: 'PO-good' });
    // pretty JSON, one field a line
    expect(await good.locator('pre.body').textContent()).toContain('\n  "paymentOrderId": "PO-good"');
    expect(JSON.parse((await good.locator('pre.headers').textContent())!)).toMatchObject({ 'message-id': 'msg-good' });
  }, 60_000);

  it('replays one record and discards another, each confirmed first; the history names the operator', async () => {
    await s.page.goto(`${s.engine.url}/console/#/failed/${rec.good!.id}`);
    const good = s.page.locator(`article.failed-detail[data-id="${rec.good!.id}"]`);
    await good.locator('button[name=replay]').click();
    // nothing happens before the confirmation
    await good.locator('.confirm[data-action="replay"]').waitFor();
    expect((await store.getFailed(rec.good!.id))?.status).toBe('open');
    await good.locator('.confirm button[name=confirm]').click();
    await s.page.locator(`article.failed-detail[data-status="replayed"]`).waitFor();
    expect(await good.locator('[role=status]').textContent()).toMatch(/^Replayed/);
    expect(await good.locator('tr[data-fact="status"] td').textContent()).toMatch(/replayed\s+by\s+alice/);
    expect(await good.locator('button[name=replay]').count()).toBe(0); // settled: no more actions
    const replayed = good.locator('.failed-history tr.audit[data-action="replay"]');
    await replayed.waitFor();
    expect(await replayed.locator('.actor').textContent()).toBe('alice');
    await s.shot('failed-record');

    await s.page.goto(`${s.engine.url}/console/#/failed/${rec.bad!.id}`);
    const bad = s.page.locator(`article.failed-detail[data-id="${rec.bad!.id}"]`);
    await bad.locator('button[name=discard]').click();
    await bad.locator('.confirm[data-action="discard"] button', { hasText: 'Cancel' }).click();
    expect(await bad.locator('.confirm').count()).toBe(0);
    await bad.locator('button[name=discard]').click();
    await bad.locator('.confirm button[name=confirm]').click();
    await s.page.locator(`article.failed-detail[data-status="discarded"]`).waitFor();
    expect(await bad.locator('[role=status]').textContent()).toBe('Discarded.');
    await bad.locator('.failed-history tr.audit[data-action="discard"]').waitFor();

    // the store agrees, and the navigation counts the two still open
    expect(await store.getFailed(rec.good!.id)).toMatchObject({ status: 'replayed', settledBy: 'alice' });
    expect(await store.getFailed(rec.bad!.id)).toMatchObject({ status: 'discarded', settledBy: 'alice' });
    await s.page.locator('a[data-page="failed"] .count', { hasText: '2' }).waitFor();
    const audit = await store.listAudit({});
    expect(audit.map((a) => [a.actor, a.action, a.records])).toEqual([
      ['alice', 'discard', [rec.bad!.id]],
      ['alice', 'replay', [rec.good!.id]],
    ]);
  }, 60_000);

  it('bulk discard of what the filter matches shows the dry-run count first; the history lists it, filterable by record', async () => {
    const more = [
      await store.recordFailed(message('bulk-1', 3, { code: 'GC599' })),
      await store.recordFailed(message('bulk-2', 2, { code: 'GC599' })),
    ];
    await s.page.goto(`${s.engine.url}/console/#/failed?code=GC599`);
    await expect.poll(rowIds).toEqual([more[1]!.id, more[0]!.id]);
    await s.page.locator('.bulk button[name=discard-all]').click();
    const confirm = s.page.locator('.bulk .confirm[data-action="discard"]');
    await confirm.waitFor();
    expect(await confirm.getAttribute('data-matched')).toBe('2');
    expect(await confirm.textContent()).toMatch(/Discard 2 open records \(code GC599\)/);
    // the dry run changed nothing
    expect((await store.listFailed({ code: 'GC599', status: 'open' })).length).toBe(2);
    await confirm.locator('button[name=confirm]').click();
    await s.page.locator('.bulk [role=status]').waitFor();
    expect(await s.page.locator('.bulk [role=status]').textContent()).toMatch(/Discarded 2 of 2/);
    await expect.poll(async () => rows().count()).toBe(0);
    expect((await store.listFailed({ code: 'GC599', status: 'discarded' })).length).toBe(2);

    // the history: newest first, the bulk entry naming both records; filtered to the replayed record
    const history = s.page.locator('.failed-history');
    await expect
      .poll(() => history.locator('tr.audit').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action'))))
      .toEqual(['discard', 'discard', 'replay']);
    expect(await history.locator('tr.audit').first().textContent()).toContain(more[0]!.id);
    await history.locator('input[name=record]').fill(rec.good!.id);
    await history.locator('input[name=record]').press('Tab');
    await expect
      .poll(() => history.locator('tr.audit').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action'))))
      .toEqual(['replay']);
    await s.shot('failed-history');
  }, 60_000);
  it('a replay that fails again keeps the record open with the new cause; a record settled meanwhile is refused with who settled it', async () => {
    const again = await store.recordFailed(
      message('again', 1, {
        code: 'VALIDATION_FAILED',
        body: JSON.stringify({ paymentOrderId: 'PO-again', status: 'LOST', statusDateTime: '2026-11-23T10:00:00Z' }),
      }),
    );
    await s.page.goto(`${s.engine.url}/console/#/failed/${again.id}`);
    const detail = s.page.locator(`article.failed-detail[data-id="${again.id}"]`);
    await detail.locator('button[name=replay]').click();
    await detail.locator('.confirm button[name=confirm]').click();
    await detail.locator('.failed-history tr.audit').waitFor();
    expect(await detail.locator('[role=status]').textContent()).toMatch(
      /^The replay failed again \(.+\); the record stays open\.$/,
    );
    expect(await detail.getAttribute('data-status')).toBe('open');
    expect(await detail.locator('tr[data-fact="attempts"] td').textContent()).toBe('4');
    expect(await detail.locator('.failed-history tr.audit .outcome').textContent()).toMatch(/^failed again: /);
    expect(await detail.locator('button[name=replay]').count()).toBe(1); // still open: it can be tried again

    // another operator discards it while this page still shows it open
    await store.discard(again.id, 'bob');
    await detail.locator('button[name=replay]').click();
    await detail.locator('.confirm button[name=confirm]').click();
    await s.page.locator(`article.failed-detail[data-status="discarded"]`).waitFor();
    expect(await detail.locator('[role=status]').textContent()).toMatch(/was discarded by bob/);
    expect(await detail.locator('tr[data-fact="status"] td').textContent()).toMatch(/discarded\s+by\s+bob/);
    expect(await detail.locator('button[name=replay]').count()).toBe(0);
    expect((await store.getFailed(again.id))?.attempts).toBe(4); // the refused replay ran nothing
  }, 60_000);
});
