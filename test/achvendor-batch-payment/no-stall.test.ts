// No stall behind a big batch (issue 15): while a batch of batch.max.entries (5,000) entries is
// validated and submitted, /health/live keeps answering. The target is 50 ms, measured by
// `npm run bench:batch`; this test asserts a bound a loaded two-core machine still meets, after
// warm-up requests (the first runs of the rules are interpreted, not compiled), in the best of
// three attempts (other processes on the machine only ever make a probe wait longer).
// test/hardening/slices.test.ts shows, with a relative bound, that the slicing is what keeps it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { batch, entry } from './fixtures.ts';
import { whileProbing, type Probed } from '../helpers/probe.ts';

const BOUND_MS = 250;
let engine: TestEngine;

beforeAll(async () => {
  engine = await startTestEngine({ routes: ['routes/achvendor-batch-payment'] });
});
afterAll(async () => {
  await engine?.close();
});

describe('a 5,000-entry batch does not stall other requests', () => {
  const b = batch(
    {},
    Array.from({ length: 5000 }, () => entry()),
  );
  const body = JSON.stringify(b);

  /** The attempt whose worst probe waited least, each answer checked. */
  async function best(path: string, check: (r: Probed) => void) {
    for (let i = 0; i < 2; i++) check(await whileProbing(engine.url, path, body)); // warm-up
    let best: Probed | undefined;
    for (let i = 0; i < 3; i++) {
      const r = await whileProbing(engine.url, path, body);
      check(r);
      if (!best || r.worstProbeMs < best.worstProbeMs) best = r;
      if (best.worstProbeMs < BOUND_MS) break;
    }
    return best!;
  }

  it(`/health/live answers within ${BOUND_MS} ms while the batch is validated`, async () => {
    const r = await best('/batch-payments/credit-batches?validate_only=true', (x) => {
      expect(x.status, JSON.stringify(x.answer).slice(0, 300)).toBe(200);
      expect(x.answer).toMatchObject({ status: 'VALIDATED', entry_count: 5000, total_credit_minor: 5000 * 125000 });
    });
    expect(r.worstProbeMs, `worst of ${r.probes} probes`).toBeLessThan(BOUND_MS);
  });

  it(`/health/live answers within ${BOUND_MS} ms while the batch is submitted`, async () => {
    const r = await best('/batch-payments/credit-batches', (x) => {
      // the same batch again is an idempotent replay at the vendor: the same answer
      expect(x.status, JSON.stringify(x.answer).slice(0, 300)).toBe(202);
      expect(x.answer).toMatchObject({ status: 'RECEIVED', entry_count: 5000, batch_reference: b.batch_reference });
    });
    expect(r.worstProbeMs, `worst of ${r.probes} probes`).toBeLessThan(BOUND_MS);
  });

  it('a violation found after the rules gave the event loop a turn is still reported', async () => {
    const bad = batch(
      {},
      Array.from({ length: 5000 }, (_, i) =>
        entry(i === 4999 ? { addenda: [{ payment_related_information: 'DED;a;b' }] } : {}),
      ),
    );
    const r = await whileProbing(engine.url, '/batch-payments/credit-batches?validate_only=true', JSON.stringify(bad));
    expect(r.status).toBe(400);
    expect(r.answer.errors).toEqual([
      {
        index: 4999,
        field: '/entries/4999/addenda/0/payment_related_information',
        message:
          'a DED addenda record holds exactly 7 semicolon-delimited fields after the prefix (DED;f1;...;f7), found 2',
      },
    ]);
  });
});
