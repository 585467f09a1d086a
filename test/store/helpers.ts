// Helpers of the durable store's tests: the machine's PostgreSQL (127.0.0.1:5432, trust auth,
// database `test`), a unique schema per test run dropped after it, and a sample failed exchange.

import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { FailedExchangeInput } from '../../engine/store/durable.ts';

export const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function uniqueSchema(tag: string): string {
  return `t_${tag}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/** One connection of its own (each replica's migrate runs on its own session). */
export async function connect(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  return c;
}

export async function dropSchema(schema: string): Promise<void> {
  const c = await connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
}

export function sample(over: Partial<FailedExchangeInput> = {}): FailedExchangeInput {
  return {
    route: 'payment-inbound-v1',
    routeVersion: 'sha256:abc',
    source: 'amqp',
    code: 'VALIDATION_FAILED',
    cause: 'body/amount: must be number',
    body: '{"amount":"x"}',
    headers: { 'message-id': 'm-1', 'content-type': 'application/json' },
    attempts: 3,
    firstAt: new Date('2026-11-27T10:00:00Z'),
    lastAt: new Date('2026-11-27T10:00:05Z'),
    traceId: '0af7651916cd43dd8448eb211c80319c',
    correlationId: 'corr-1',
    ...over,
  };
}
