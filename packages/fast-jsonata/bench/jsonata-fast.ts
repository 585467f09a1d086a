// Micro-benchmark: JSONata's evaluate() against the fast evaluator for typical route expressions.
// Run with `npm run bench:jsonata` (from the repository root) or `npm run bench` (in packages/fast-jsonata); the last
// rows are the forms of the ACH batch rules and the
// screening mappings over 100 entries.

import jsonata from 'jsonata';
import { compileFast } from '../src/index.ts';
import { TEST_FUNCTIONS as FUNCTIONS } from '../test/support/functions.ts';

/** A batch of ACH credit entries shaped like the engine's batch route input (every other one with an addenda). */
function achBatch(entries: number): Record<string, unknown> {
  return {
    batch_reference: `BENCH-${entries}`,
    entries: Array.from({ length: entries }, (_, i) => ({
      entry_reference: `EMP-${i}`,
      transaction_code: i % 3 === 0 ? '32' : '22',
      receiving_dfi_routing: i % 2 ? '021000021' : '011000015',
      account_number: `12345${i}`,
      amount_minor: 1000 + i,
      individual_name: 'JANE DOE',
      ...(i % 2 ? { addenda: [{ payment_related_information: 'DED;CS123456;20251128;CS;12500;N;JANE DOE;NY' }] } : {}),
    })),
  };
}

const INPUT: Record<string, unknown> = {
  body: {
    buyCurrency: 'EUR',
    sellCurrency: 'USD',
    amount: 1250.5,
    iban: 'DE89 3704 0044 0532 0130 00',
    firstName: 'Ada',
    lastName: 'Lovelace',
  },
  // collection rules run over a batch of 100 entries
  batch: achBatch(100),
  amlTypes: ['sanction', 'pep-class-1', 'adverse-media', 'warning', 'watchlist'],
  headers: { authorization: 'Bearer abc', 'x-request-id': 'req-1' },
  query: { validate_only: 'true' },
  params: { externalReferenceNo: 'EXT-42' },
  vars: {},
};

const EXPRESSIONS: Record<string, string> = {
  'object constructor (6 fields + default)': `{
    "buyCurrency": body.buyCurrency,
    "sellCurrency": body.sellCurrency,
    "amount": body.amount ? body.amount : '100',
    "iban": $ibanElectronic(body.iban),
    "reference": params.externalReferenceNo,
    "validateOnly": query.validate_only = 'true'
  }`,
  path: 'body.buyCurrency',
  'string concatenation': "body.firstName & ' ' & body.lastName & ' (' & body.amount & ' ' & body.buyCurrency & ')'",
  // the forms of the ACH batch rules and the screening mappings (100 entries)
  'entries#$i[filter].{constructor}':
    "batch.entries#$i[amount_minor > 1050].{'index': $i, 'field': '/entries/' & $i & '/amount_minor'}",
  'group-by + $lookup per entry':
    '($c := batch.entries{entry_reference: $count(entry_reference)}; batch.entries#$i[$lookup($c, entry_reference) > 1].$i)',
  'nested #$i.#$j + lambda variable':
    "($check := function($t){$count($split($t, ';'))}; batch.entries#$i.addenda#$j.{'i': $i, 'j': $j, 'n': $check(payment_related_information)})",
  '$filter with index': '$filter(batch.entries, function($e, $i){$i % 2 = 0}).entry_reference',
  '$map with a bound lambda + regex':
    "($cat := function($t){$contains($t, /^sanction/) ? 'Sanctions' : $contains($t, /^pep/) ? 'PEPs' : 'Other'}; $map(amlTypes, $cat))",
};

function compile(src: string) {
  const expr = jsonata(src);
  for (const [name, f] of Object.entries(FUNCTIONS)) expr.registerFunction(name, f.fn, f.signature);
  const fast = compileFast(expr.ast(), FUNCTIONS);
  if (!fast) throw new Error(`not on the fast path: ${src}`);
  return { expr, fast };
}

/** Runs `fn` for about `ms` milliseconds (after a warm-up) and returns operations per second. */
async function opsPerSec(fn: () => unknown, ms: number): Promise<number> {
  const run = async (budget: number) => {
    let ops = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < budget) {
      for (let i = 0; i < 200; i++) await fn();
      ops += 200;
      elapsed = performance.now() - start;
    }
    return (ops / elapsed) * 1000;
  };
  await run(ms / 4); // warm-up: let the JIT settle
  return run(ms);
}

/** The sync fast path measured without awaiting, as callers use it. */
function opsPerSecSync(fn: () => unknown, ms: number): number {
  const run = (budget: number) => {
    let ops = 0;
    const start = performance.now();
    let elapsed = 0;
    let sink: unknown;
    while (elapsed < budget) {
      for (let i = 0; i < 1000; i++) sink = fn();
      ops += 1000;
      elapsed = performance.now() - start;
    }
    if (sink === Symbol.for('never')) console.log(sink);
    return (ops / elapsed) * 1000;
  };
  run(ms / 4);
  return run(ms);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(12);

const MS = Number(process.env.BENCH_MS ?? 1000);
console.log(
  `${'expression'.padEnd(42)}${'jsonata ops/s'.padStart(14)}${'fast ops/s'.padStart(14)}${'speed-up'.padStart(10)}`,
);
for (const [label, src] of Object.entries(EXPRESSIONS)) {
  const { expr, fast } = compile(src);
  // same answer first: a benchmark of a wrong result is worthless
  const expected = JSON.stringify(await expr.evaluate(INPUT));
  const actual = JSON.stringify(fast(INPUT));
  if (expected !== actual) throw new Error(`${label}: fast path gives ${actual}, JSONata ${expected}`);
  const slowOps = await opsPerSec(() => expr.evaluate(INPUT), MS);
  const fastOps = opsPerSecSync(() => fast(INPUT), MS);
  console.log(`${label.padEnd(42)}${fmt(slowOps)}  ${fmt(fastOps)}  ${(fastOps / slowOps).toFixed(0).padStart(6)}x`);
}
