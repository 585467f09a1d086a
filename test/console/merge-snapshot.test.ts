// The exchanges list's merge of the ring's snapshot with the rows the live stream delivered while
// the snapshot was on its way (console-ui/exchanges-page.js): nothing the stream showed is lost.
import { expect, it } from 'vitest';
// @ts-expect-error the console's page is plain JavaScript without types
import { mergeSnapshot } from '../../console-ui/exchanges-page.js';

const row = (id: string, startedAt: number, outcome: string) => ({ id, startedAt, outcome });

it('keeps a live row the snapshot does not have yet, newest first', () => {
  const out = mergeSnapshot([row('a', 1, 'ok')], [row('b', 2, 'ok')]);
  expect(out.map((r: { id: string }) => r.id)).toEqual(['b', 'a']);
});

it('a live end wins over a running snapshot row; a live running row does not win over an ended one', () => {
  expect(mergeSnapshot([row('a', 1, 'running')], [row('a', 1, 'error')])).toEqual([row('a', 1, 'error')]);
  expect(mergeSnapshot([row('a', 1, 'ok')], [row('a', 1, 'running')])).toEqual([row('a', 1, 'ok')]);
});

it('with no live rows yet it is the snapshot', () => {
  expect(mergeSnapshot([row('a', 2, 'ok'), row('b', 1, 'ok')], undefined)).toEqual([
    row('a', 2, 'ok'),
    row('b', 1, 'ok'),
  ]);
});
