// Micro-benchmark: masking a log line and a large body with the configured secrets of the
// project (every form of each: secret-forms.ts). Run with `node --import tsx bench/mask.ts`; the
// numbers before and after every form was masked are in docs/benchmarks.md.

import { compileSecrets, maskText, NO_SECRETS } from '../engine/observability/mask.ts';
import { createLogger, setLogSecrets } from '../engine/observability/logger.ts';

// the secrets of the six connectors' values files, as long as real ones
const SECRETS = compileSecrets([
  'sandbox-achvendor-client-key',
  'achvendor-webhook-secret-0123456789',
  'screenvendor-api-key-0123456789',
  'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  'hub-amqp-password-xyz-42',
  'platform-backend-token-abcdef',
]);
const LINE =
  'The ACH vendor refused the connector configuration (header.client_key): Invalid header client key, correlation 3f2a9c1e-8b7d-4c21-9e0f-5a6b7c8d9e0f';
const BODY = JSON.stringify(
  Array.from({ length: 1000 }, (_, i) => ({
    id: i,
    name: 'Viktor Petrov',
    iban: 'DE89370400440532013000',
    amount: 1234.56,
    remittance: `invoice 2026-11 number ${i}`,
  })),
).slice(0, 100_000);
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

// a destination that drops the line: the cost measured is pino's and the masking's
const sink = { write: () => {} };
const logger = createLogger('info', sink);
setLogSecrets(logger, SECRETS);
const bare = createLogger('info', sink);

const CASES: [string, number, () => unknown][] = [
  ['vendor text (150 chars), no secrets', 200_000, () => maskText(LINE, NO_SECRETS, UNBOUNDED)],
  ['vendor text (150 chars), 6 secrets', 200_000, () => maskText(LINE, SECRETS, UNBOUNDED)],
  ['body 100 kB, bounded to 4,000 (console), 6 secrets', 20_000, () => maskText(BODY, SECRETS, 4000)],
  ['body 100 kB, unbounded (a log field), no secrets', 200, () => maskText(BODY, NO_SECRETS, UNBOUNDED)],
  ['body 100 kB, unbounded (a log field), 6 secrets', 200, () => maskText(BODY, SECRETS, UNBOUNDED)],
  [
    'log line "exchange failed", no secrets registered',
    100_000,
    () =>
      bare.warn(
        { kind: 'vendor', status: 401, code: 'GC002', vendorStatus: 401, vendorCode: 'RSK-10-1002', detail: LINE },
        'exchange failed',
      ),
  ],
  [
    'log line "exchange failed", 6 secrets registered',
    100_000,
    () =>
      logger.warn(
        { kind: 'vendor', status: 401, code: 'GC002', vendorStatus: 401, vendorCode: 'RSK-10-1002', detail: LINE },
        'exchange failed',
      ),
  ],
];

// best of 15 interleaved rounds: the machine may be shared
const best = new Map<string, number>();
for (let round = 0; round < 15; round++) {
  for (const [name, n, f] of CASES) {
    const runs = Math.max(1, Math.floor(n / 15));
    const t = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) f();
    const us = Number(process.hrtime.bigint() - t) / runs / 1000;
    best.set(name, Math.min(best.get(name) ?? Infinity, us));
  }
}
for (const [name, us] of best) console.log(`${name.padEnd(55)} ${us < 10 ? us.toFixed(2) : us.toFixed(0)} µs`);
