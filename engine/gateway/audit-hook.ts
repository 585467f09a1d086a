// What the gateway tells its audit trail (issue: every gateway decision recorded). The gateway
// calls `record` at each decision; the durable, hash-chained trail (engine/gateway/audit.ts, on
// the durable store) implements it. Never a key or a token here: the key's id, the token's
// subject, issuer and jti only; arguments as a digest.

export type AuditKind =
  /** a tools/call that reached the route: its outcome */
  | 'call'
  /** a request refused by a check (which check: `check`) */
  | 'refusal'
  /** a human confirmation: asked, given, refused, expired, replayed, mismatched */
  | 'confirmation'
  /** `engine tools approve`: a tool approved, or the approved definition changed */
  | 'approval';

export interface AuditEntry {
  kind: AuditKind;
  /** ISO time of the decision (default: now) */
  at?: string;
  tool?: string;
  /** the subscription's name */
  subscription?: string;
  /** the key's id (never the key) */
  keyId?: string;
  /** the verified token's subject (the user id) or `anonymous` */
  user?: string;
  issuer?: string;
  jti?: string;
  /** sha256 of the canonical JSON of the arguments (never the arguments) */
  argsDigest?: string;
  /** call: ok | error | refused; confirmation: asked | given | refused | expired | replayed | mismatched */
  outcome?: string;
  /** the platform code of an error answer (GC...) */
  code?: string;
  /** refusal: which check (subscription, token, rate-limit, scope, confirmation, unknown-tool, ...) */
  check?: string;
  detail?: string;
  correlationId?: string;
  clientIp?: string;
}

export interface GatewayAudit {
  /** Records one decision; never throws into the request (a failure is logged by the trail). */
  record(entry: AuditEntry): void;
}

/** No trail configured: decisions are only logged and counted, as before. */
export const NO_AUDIT: GatewayAudit = { record() {} };
