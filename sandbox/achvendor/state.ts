// In-memory records and settings of one achvendor instance (never module-level, so tests can run
// several). Bounded: a benchmark submitting at full speed evicts the oldest instead of growing.

import { BoundedMap } from '../lib/bounded-map.ts';
import type { Batch } from './model.ts';
import type { WebhookDelivery } from './webhooks.ts';

export interface AchState {
  clientKey: string;
  /** where webhooks go (the engine's base URL), null to send none */
  webhookBase: string | null;
  /** automatic lifecycle step delay; null: manual (advance) */
  stepDelay: number | null;
  repeatedCancel: 'answer' | 'refuse';
  batches: BoundedMap<string, Batch>;
  byReference: BoundedMap<string, string>;
  idempotency: BoundedMap<string, { fingerprint: string; status: number; body: unknown }>;
  timers: Map<string, NodeJS.Timeout>;
  deliveries: WebhookDelivery[];
  closed: boolean;
  seq: number;
}

export function createAchState(
  o: Pick<AchState, 'clientKey' | 'webhookBase' | 'stepDelay' | 'repeatedCancel'>,
  max: number,
): AchState {
  return {
    ...o,
    batches: new BoundedMap<string, Batch>(max),
    byReference: new BoundedMap<string, string>(max),
    idempotency: new BoundedMap<string, { fingerprint: string; status: number; body: unknown }>(max),
    timers: new Map<string, NodeJS.Timeout>(),
    deliveries: [],
    closed: false,
    seq: 0,
  };
}

export const now = () => new Date().toISOString();
