// The durable audit trail behind the gateway's audit hook (audit-hook.ts): `record` only queues the
// entry (no await, nothing thrown into the request); one writer appends the queue in order, in
// batches, to the hash chain in the durable store (audit-chain.ts). The store is opened with the
// first decision, not at start. A store that fails is logged (once per outage) and retried with a
// growing pause; the queue is bounded: when it is full, new decisions are dropped, counted, and a
// `gap` record saying how many were lost is appended as soon as the store takes writes again.

import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DurableStore } from '../store/durable.ts';
import type { AuditEntry, GatewayAudit } from './audit-hook.ts';
import { appendRecords, pending, type PendingRecord } from './audit-chain.ts';

export interface DurableAuditOptions {
  /** the engine's durable store (opened on first use) */
  store: () => Promise<DurableStore>;
  log: Logger;
  /** most decisions waiting to be written (default 10,000) */
  maxQueue?: number;
  /** most records per transaction (default 1,000) */
  batch?: number;
  /**
   * how long a batch waits for more decisions before it is written, ms (default 50): a transaction
   * costs the embedded store about 1 ms of the engine's CPU however few rows it holds, so under load
   * one commit per 50 ms carries hundreds of decisions instead of one each
   */
  lingerMs?: number;
  /** first pause after a failed write, ms (doubles up to maxRetryMs) */
  retryMs?: number;
  maxRetryMs?: number;
  /** counts decisions dropped because the queue was full */
  onDrop?: () => void;
}

export class DurableAudit implements GatewayAudit {
  private queue: PendingRecord[] = [];
  /** decisions dropped since the last gap record */
  private dropped = 0;
  private writing?: Promise<void>;
  private failing = false;
  private closed = false;
  private timer?: NodeJS.Timeout;
  private wake?: () => void;
  private readonly maxQueue: number;
  /** flush() calls waiting: write without lingering */
  private hurry = 0;
  private lingering = false;

  constructor(private o: DurableAuditOptions) {
    this.maxQueue = o.maxQueue ?? 10_000;
  }

  record(entry: AuditEntry): void {
    try {
      if (this.closed) return;
      if (this.queue.length >= this.maxQueue) {
        if (this.dropped++ === 0)
          this.o.log.error(
            { maxQueue: this.maxQueue },
            'gateway audit: the queue is full (the durable store is not taking writes); decisions are dropped until it drains, and the gap is recorded',
          );
        this.o.onDrop?.();
        return;
      }
      this.queue.push(pending(entry));
      this.writing ??= this.drain();
    } catch (e) {
      this.o.log.error({ err: e }, 'gateway audit: a decision could not be queued');
    }
  }

  /** Decisions queued and not written yet. */
  get queued(): number {
    return this.queue.length;
  }

  /** Resolves when everything queued so far is written (or the trail is closed). */
  async flush(): Promise<void> {
    this.hurry++;
    if (this.lingering) this.retryNow();
    try {
      while (this.writing && !this.closed) await this.writing;
    } finally {
      this.hurry--;
    }
  }

  /** Writes what is queued (waiting up to `ms`; 1 s when the store is failing already), then stops. */
  async close(ms = this.failing ? 1000 : 5000): Promise<void> {
    const done = this.flush();
    const t = setTimeout(() => (this.closed = true), ms);
    this.retryNow();
    await Promise.race([done, new Promise((r) => setTimeout(r, ms))]);
    clearTimeout(t);
    this.closed = true;
    this.retryNow();
    if (this.queue.length)
      this.o.log.error({ lost: this.queue.length }, 'gateway audit: decisions not written before the engine stopped');
  }

  private retryNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
  }

  /** Waits `ms` or until retryNow(). */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((r) => {
      this.wake = r;
      this.timer = setTimeout(r, ms);
      this.timer.unref?.();
    }).then(() => {
      this.wake = undefined;
    });
  }

  private async drain(): Promise<void> {
    let pause = this.o.retryMs ?? 500;
    const max = this.o.maxRetryMs ?? 30_000;
    const batchMax = this.o.batch ?? 1000;
    const linger = this.o.lingerMs ?? 50;
    try {
      while (this.queue.length && !this.closed) {
        if (linger > 0 && !this.hurry && this.queue.length < batchMax) {
          this.lingering = true;
          await this.sleep(linger);
          this.lingering = false;
        }
        if (this.closed) break;
        const n = Math.min(this.queue.length, batchMax);
        const batch = this.queue.slice(0, n);
        const lost = this.dropped;
        if (lost)
          batch.unshift(
            pending({
              kind: 'gap',
              detail: `${lost} decision(s) not recorded: the audit queue was full (${this.maxQueue})`,
            }),
          );
        try {
          const store = await this.o.store();
          await appendRecords(store.sql, batch);
          this.queue.splice(0, n);
          this.dropped -= lost;
          if (this.failing) this.o.log.info('gateway audit: the durable store takes writes again');
          this.failing = false;
          pause = this.o.retryMs ?? 500;
        } catch (e) {
          if (!this.failing)
            this.o.log.error(
              { err: { message: (e as Error)?.message }, queued: this.queue.length },
              'gateway audit: writing to the durable store failed; retrying',
            );
          this.failing = true;
          await this.sleep(pause);
          pause = Math.min(pause * 2, max);
        }
      }
    } finally {
      this.writing = undefined;
      // an entry queued while the last batch was written
      if (this.queue.length && !this.closed) this.writing = this.drain();
    }
  }
}

/**
 * The trail's metrics on the engine's registry: decisions dropped (queue full) and decisions
 * waiting to be written. Registered once per registry; `of` names the trail the gauge reads.
 */
export function auditMetrics(registry: Registry, of: () => DurableAudit | undefined): { dropped: Counter } {
  const dropped =
    (registry.getSingleMetric('gateway_audit_dropped_total') as Counter | undefined) ??
    new Counter({
      name: 'gateway_audit_dropped_total',
      help: 'Gateway decisions not recorded in the audit trail: its queue was full (the durable store not taking writes)',
      registers: [registry],
    });
  if (!registry.getSingleMetric('gateway_audit_queued'))
    new Gauge({
      name: 'gateway_audit_queued',
      help: 'Gateway decisions waiting to be written to the audit trail',
      registers: [registry],
      collect() {
        this.set(of()?.queued ?? 0);
      },
    });
  return { dropped };
}
