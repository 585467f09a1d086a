// `engine tools approve` in the audit trail: one `approval` record per tool approved, saying whether
// it was new, a changed definition approved again, or the same definition approved again, with the
// environment and the digests. Written by the CLI itself, straight to the project's durable store
// (awaited: the command says whether the record was kept), before the approvals file changes.

import { userInfo } from 'node:os';
import { openEngine, type EngineOptions } from '../engine.ts';
import { createLogger } from '../observability/logger.ts';
import { durableStoreFor } from '../store/durable-for.ts';
import type { DurableStore } from '../store/durable.ts';
import type { AuditEntry } from './audit-hook.ts';
import { appendRecords, pending } from './audit-chain.ts';
import type { Approvals, Tool } from './tools.ts';

/** The records of approving `tools` for `env`, given the approvals before. */
export function approvalEntries(tools: Tool[], before: Approvals, env: string, by: string): AuditEntry[] {
  return tools.map((t) => {
    const was = before[env]?.[t.name]?.digest;
    const outcome = !was ? 'approved' : was === t.digest ? 'approved again' : 'definition changed';
    return {
      kind: 'approval',
      tool: t.name,
      user: by,
      outcome,
      detail: `env ${env}: ${t.digest}${was && was !== t.digest ? ` (was ${was})` : ''}`,
    };
  });
}

/** Appends the records in one transaction. */
async function recordApprovals(store: DurableStore, entries: AuditEntry[]): Promise<void> {
  await appendRecords(store.sql, entries.map(pending));
}

/** The approver when --by is not given: the OS user. */
export function osUser(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/**
 * Opens the project's durable store (its engine.store settings for `opts.env`), appends the
 * records and closes it. Throws when the store cannot be reached.
 */
export async function recordApprovalsInProject(opts: EngineOptions, entries: AuditEntry[]): Promise<void> {
  const engine = await openEngine({ ...opts, outbox: false, logger: createLogger('silent') });
  try {
    await recordApprovals(await durableStoreFor(engine.services), entries);
  } finally {
    await engine.close().catch(() => {});
  }
}
