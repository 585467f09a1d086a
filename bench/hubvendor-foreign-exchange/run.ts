// FX benchmark: the FX route through the engine against the hand-written limit, same
// simulator, same bounded load, interleaved rounds. `npm run bench:fx` (SECONDS=10 CONNECTIONS=20
// ROUNDS=3 to change).
import { loadavg } from 'node:os';
import { engineVersusBaseline, table, roundsTable } from '../lib/harness.ts';

const seconds = Number(process.env.SECONDS ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 20);
const rounds = Number(process.env.ROUNDS ?? 3);
const load = {
  method: 'POST' as const,
  path: '/foreign-exchange/exchange-rates',
  body: { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' },
  connections,
  seconds,
  warmupSeconds: 3,
};
const { best: results, perRound } = await engineVersusBaseline({
  baseline: [
    'hand-written limit (node:http + undici Pool dispatch + ajv)',
    'bench/hubvendor-foreign-exchange/baseline.ts',
  ],
  engine: ['engine (FX route, JSONata)', 'routes/hubvendor-foreign-exchange'],
  load,
  rounds,
});
console.log(
  `\nFX route, ${connections} connections, ${seconds} s, ${rounds} interleaved rounds (best of each), ${new Date().toISOString()}, node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
console.log(table(results, results[0].name));
console.log(`\n${roundsTable(perRound)}`);
