// Human confirmation of a `confirm: required` tool call (MCP 2026-07-28 multi round-trip requests,
// basic/patterns/mrtr.mdx, with a form elicitation, client/elicitation.mdx). The first call answers
// `input_required` with an elicitation showing the payment (accounts masked) and a `requestState`
// the client echoes on its retry. The server keeps nothing until then: the state carries the tool,
// the principal, the digest of the arguments and an expiry, under an HMAC ("If requestState
// influences authorization ... servers MUST protect its integrity"). Single use is enforced
// server-side, as the spec requires for one-time redemptions: the state's nonce is claimed once in
// the engine's shared store (memory, or Redis across replicas).

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ClaimSet } from '../store/store.ts';
import { maskAccount } from '../observability/mask.ts';
import type { Tool } from './tools.ts';
import { argsDigest } from './audit-chain.ts';

/** The key of the confirmation in `inputRequests` and `inputResponses`. */
const CONFIRM_REQUEST = 'confirm';
/** The boolean the user sets in the form. */
const CONFIRM_FIELD = 'confirm';

/** What the audit trail records for a confirmation decision (audit-hook.ts). */
export type ConfirmOutcome = 'asked' | 'given' | 'refused' | 'expired' | 'replayed' | 'mismatched';

/** Who asks: the state is bound to them. */
export interface Principal {
  user: string;
  subscription: string;
}

interface State {
  v: 1;
  tool: string;
  user: string;
  sub: string;
  /** sha256 of the canonical arguments */
  d: string;
  /** expiry, ms since epoch */
  exp: number;
  /** the single-use id */
  n: string;
}

/** The decision on a retried call. */
export type Checked =
  | { ok: true; nonce: string }
  /** ask again: the answer is missing (mrtr.mdx: "SHOULD respond with a new InputRequiredResult") */
  | { ok: false; ask: true }
  | {
      ok: false;
      ask?: false;
      outcome: Exclude<ConfirmOutcome, 'asked' | 'given'>;
      message: string;
      protocol?: boolean;
    };

const get = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as any)[k] : undefined), o);

/** What the person is shown: the payment's parts that are present in the arguments, accounts masked. */
export function summary(args: Record<string, unknown>): string[] {
  const tti = 'transferTransactionInformation';
  const amount = get(args, `${tti}.instructedAmount.amount`);
  const currency = get(args, `${tti}.instructedAmount.currencyCode`);
  const debtor = get(args, 'originatorAccount.identification.identification');
  const creditor = get(args, `${tti}.counterpartyAccount.identification.identification`);
  const creditorName = get(args, `${tti}.counterparty.name`);
  const date = get(args, 'requestedExecutionDate');
  const ref = get(args, 'externalReferenceNo');
  const cancellation = get(args, 'cancellationType');
  const lines: string[] = batchSummary(args);
  if (ref !== undefined) lines.push(`Payment: ${String(ref)}`);
  if (cancellation !== undefined) lines.push(`Cancellation: ${String(cancellation)}`);
  if (amount !== undefined) lines.push(`Amount: ${String(amount)} ${String(currency ?? '')}`.trim());
  if (debtor !== undefined) lines.push(`From account: ${maskAccount(debtor)}`);
  if (creditor !== undefined || creditorName !== undefined)
    lines.push(
      `To: ${[creditorName, creditor !== undefined ? maskAccount(creditor) : undefined].filter(Boolean).join(', ')}`,
    );
  if (date !== undefined) lines.push(`Execution date: ${String(date)}`);
  return lines;
}

/** An ACH batch: its reference, originator, entry count, total (minor units as decimals), effective date. */
function batchSummary(args: Record<string, unknown>): string[] {
  const entries = args.entries;
  if (!Array.isArray(entries) || args.batch_reference === undefined) return [];
  const minor = entries.reduce((n: number, e) => n + (Number((e as any)?.amount_minor) || 0), 0);
  const accounts = entries.slice(0, 3).map((e) => maskAccount((e as any)?.account_number));
  return [
    `Batch: ${String(args.batch_reference)} from ${String(args.company_name ?? '')}`.trim(),
    `Entries: ${entries.length}, total ${(minor / 100).toFixed(2)} USD`,
    `To accounts: ${accounts.join(', ')}${entries.length > 3 ? ', ...' : ''}`,
    ...(args.effective_entry_date !== undefined ? [`Effective date: ${String(args.effective_entry_date)}`] : []),
  ];
}

/** The client declared form elicitation (an empty `elicitation` object means form; elicitation.mdx). */
export function canElicitForm(capabilities: unknown): boolean {
  const e = (capabilities as any)?.elicitation;
  if (!e || typeof e !== 'object') return false;
  return Object.keys(e).length === 0 || (e.form !== undefined && e.form !== null);
}

export class Confirmations {
  private key: Buffer;

  constructor(
    secret: string | Buffer,
    private ttlMs: number,
    /** nonces used: claimed once, kept past the expiry */
    private used: ClaimSet,
  ) {
    this.key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  }

  /** A random HMAC key for a process without a configured secret. */
  static randomKey(): Buffer {
    return randomBytes(32);
  }

  /** The members of the InputRequiredResult (no braces): the elicitation and the signed state. */
  ask(tool: Tool, who: Principal, args: Record<string, unknown>, now = Date.now()): string {
    const lines = summary(args);
    const title = String((tool.definition.title as string | undefined) ?? tool.name);
    const message = `Confirm: ${title}${lines.length ? `\n${lines.join('\n')}` : ''}`;
    const request = {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            [CONFIRM_FIELD]: {
              type: 'boolean',
              title: 'I confirm',
              description: lines.join('; ') || title,
            },
          },
          required: [CONFIRM_FIELD],
        },
      },
    };
    const state: State = {
      v: 1,
      tool: tool.name,
      user: who.user,
      sub: who.subscription,
      d: argsDigest(args),
      exp: now + this.ttlMs,
      n: randomBytes(16).toString('base64url'),
    };
    return `"inputRequests":${JSON.stringify({ [CONFIRM_REQUEST]: request })},"requestState":${JSON.stringify(this.sign(state))}`;
  }

  /**
   * The retry: the state verified and bound to this tool, principal and arguments, not expired, the
   * user's answer an accept with the box ticked, the nonce unused (claimed here, so a second use is
   * a replay). A store outage throws (the caller refuses: single use cannot be told).
   */
  async check(
    tool: Tool,
    who: Principal,
    args: Record<string, unknown>,
    requestState: unknown,
    inputResponses: unknown,
    now = Date.now(),
  ): Promise<Checked> {
    const state = typeof requestState === 'string' ? this.verify(requestState) : undefined;
    if (!state)
      return {
        ok: false,
        outcome: 'mismatched',
        protocol: true,
        message: 'Invalid params: requestState failed verification; call again without it to be asked anew',
      };
    if (state.tool !== tool.name || state.user !== who.user || state.sub !== who.subscription)
      return {
        ok: false,
        outcome: 'mismatched',
        message: 'The confirmation was given for another tool or another user; call again without it to be asked anew',
      };
    if (state.d !== argsDigest(args))
      return {
        ok: false,
        outcome: 'mismatched',
        message:
          'The arguments differ from the ones the user confirmed; nothing was done. Call again without requestState to ask the user to confirm these',
      };
    if (now > state.exp)
      return {
        ok: false,
        outcome: 'expired',
        message: `The confirmation expired (${Math.round(this.ttlMs / 1000)} s to answer); nothing was done. Call again to ask the user anew`,
      };
    const answer = (inputResponses as any)?.[CONFIRM_REQUEST];
    if (!answer || typeof answer !== 'object' || typeof answer.action !== 'string') return { ok: false, ask: true };
    // the decision is final either way: the same state cannot be answered twice
    let claim = this.used.claim(state.n);
    if (claim instanceof Promise) claim = await claim;
    if (claim.state !== 'claimed')
      return {
        ok: false,
        outcome: 'replayed',
        message: 'This confirmation was used already; nothing was done. Each confirmation allows one call',
      };
    const done = this.used.complete(state.n, claim.token);
    if (done instanceof Promise) await done;
    if (answer.action !== 'accept' || answer.content?.[CONFIRM_FIELD] !== true)
      return {
        ok: false,
        outcome: 'refused',
        message: `The user did not confirm (${answer.action === 'accept' ? 'not ticked' : String(answer.action).slice(0, 16)}); nothing was done`,
      };
    return { ok: true, nonce: state.n };
  }

  private sign(state: State): string {
    const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  private verify(token: string): State | undefined {
    if (token.length > 2048) return undefined;
    const dot = token.indexOf('.');
    if (dot < 1) return undefined;
    const payload = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    const want = this.mac(payload);
    if (mac.length !== want.length || !timingSafeEqual(mac, want)) return undefined;
    try {
      const s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as State;
      return s && s.v === 1 && typeof s.n === 'string' && typeof s.exp === 'number' ? s : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(`mcp-confirmation:${payload}`).digest();
  }
}
