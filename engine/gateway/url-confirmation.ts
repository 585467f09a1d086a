// Human confirmation for clients of 2025-11-25 (URL mode elicitation, client/elicitation.mdx): a
// call to a `confirm: required` tool answers JSON-RPC -32042 (URLElicitationRequired) naming a page
// of the gateway where the signed-in person sees the payment and confirms or refuses it
// (confirm-page.ts); the client retries the same call, which runs once the person confirmed. These
// revisions' retry carries nothing but the call itself, so the pending confirmation is kept in the
// engine's shared store (memory, or Redis across replicas), found again by the binding of tool,
// user, subscription and argument digest, and taken (read and deleted in one step) by the one call
// it allows: single use. The URL carries only a random id, no user data, and grants nothing: the
// page asks for the user's own token ("MUST NOT provide a URL which is pre-authenticated").

import { createHash, randomBytes } from 'node:crypto';
import type { RecordSet } from '../store/store.ts';
import { argsDigest } from './audit-chain.ts';
import { summary, type Principal } from './confirmation.ts';
import type { Tool } from './tools.ts';

/** A confirmation waiting for, or holding, the person's decision. */
export interface PendingConfirmation {
  id: string;
  tool: string;
  title: string;
  user: string;
  sub: string;
  /** sha256 of the canonical arguments */
  d: string;
  /** what the page shows: amount, currency, masked accounts, execution date, ... */
  lines: string[];
  state: 'pending' | 'confirmed' | 'refused';
  /** pending: until when the person may answer; confirmed: until when the call may be retried (ms) */
  exp: number;
}

/** What a call to the tool gets. */
export type OnCall =
  /** -32042 with the page's id (`fresh`: asked now, else the same confirmation is still open) */
  | { kind: 'ask'; id: string; message: string; fresh: boolean }
  /** the person confirmed these arguments: the route runs (the confirmation is used up) */
  | { kind: 'run'; record: PendingConfirmation }
  | { kind: 'refused'; record: PendingConfirmation }
  | { kind: 'expired'; record: PendingConfirmation };

/** What the page's decision did. */
export type Decision =
  | { kind: 'done'; record: PendingConfirmation }
  /** no such confirmation for this user (unknown id, another user's, or gone) */
  | { kind: 'unknown' }
  | { kind: 'decided' | 'expired'; record: PendingConfirmation };

const RECORD = 'e:';
const BINDING = 'b:';

export class UrlConfirmations {
  constructor(
    private records: RecordSet,
    private ttlMs: number,
  ) {}

  /** How long records are kept: an answer's and a retry's time, so that an expiry can still be told. */
  private get keepMs(): number {
    return 2 * this.ttlMs;
  }

  private binding(tool: string, who: Principal, digest: string): string {
    return (
      BINDING +
      createHash('sha256')
        .update(JSON.stringify([tool, who.user, who.subscription, digest]))
        .digest('base64url')
    );
  }

  /** A call of the tool: run it if confirmed, else ask (once per binding), or say it was refused or expired. */
  async onCall(tool: Tool, who: Principal, args: Record<string, unknown>, now = Date.now()): Promise<OnCall> {
    const d = argsDigest(args);
    const bk = this.binding(tool.name, who, d);
    const id = await this.records.get(bk);
    if (id !== undefined) {
      const rec = await this.load(id);
      // bound but no record: a decision is being written right now; the same confirmation is open
      if (!rec) return { kind: 'ask', id, message: `Confirm: ${tool.name}`, fresh: false };
      if (rec.state === 'pending' && now <= rec.exp) return { kind: 'ask', id, message: message(rec), fresh: false };
      // decided or expired: this call ends it, whoever takes the binding first (single use)
      if ((await this.records.take(bk)) === id) {
        await this.records.take(RECORD + id);
        if (rec.state === 'confirmed' && now <= rec.exp) return { kind: 'run', record: rec };
        return rec.state === 'refused' ? { kind: 'refused', record: rec } : { kind: 'expired', record: rec };
      }
    }
    const title = String((tool.definition.title as string | undefined) ?? tool.name);
    const rec: PendingConfirmation = {
      id: randomBytes(16).toString('base64url'),
      tool: tool.name,
      title,
      user: who.user,
      sub: who.subscription,
      d,
      lines: summary(args),
      state: 'pending',
      exp: now + this.ttlMs,
    };
    await this.records.set(RECORD + rec.id, JSON.stringify(rec), this.keepMs);
    await this.records.set(bk, rec.id, this.keepMs);
    return { kind: 'ask', id: rec.id, message: message(rec), fresh: true };
  }

  /** The confirmation `id` as its user sees it; undefined for anyone else (its existence does not leak). */
  async view(id: string, user: string): Promise<PendingConfirmation | undefined> {
    const rec = await this.load(id);
    return rec && rec.user === user ? rec : undefined;
  }

  /**
   * The person's decision. The record is taken while it is decided, so of two decisions at once
   * one wins and the other finds nothing (unknown). A confirmed call may then be retried within
   * the ttl.
   */
  async decide(id: string, user: string, confirm: boolean, now = Date.now()): Promise<Decision> {
    const rec = await this.view(id, user);
    if (!rec) return { kind: 'unknown' };
    if (rec.state !== 'pending') return { kind: 'decided', record: rec };
    const taken = await this.records.take(RECORD + id);
    if (taken === undefined) return { kind: 'unknown' };
    if (now > rec.exp) {
      // put back as it was: the next call of the tool finds it expired and says so
      await this.records.set(RECORD + id, taken, this.keepMs);
      return { kind: 'expired', record: rec };
    }
    const decided: PendingConfirmation = {
      ...rec,
      state: confirm ? 'confirmed' : 'refused',
      exp: confirm ? now + this.ttlMs : rec.exp,
    };
    await this.records.set(RECORD + id, JSON.stringify(decided), this.keepMs);
    return { kind: 'done', record: decided };
  }

  private async load(id: string): Promise<PendingConfirmation | undefined> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    const raw = await this.records.get(RECORD + id);
    return raw === undefined ? undefined : (JSON.parse(raw) as PendingConfirmation);
  }
}

/** The elicitation's message: what the client shows before it offers to open the page. */
function message(rec: PendingConfirmation): string {
  return `Confirm: ${rec.title}${rec.lines.length ? `\n${rec.lines.join('\n')}` : ''}\nOpen the page to confirm or refuse; then call the tool again.`;
}
