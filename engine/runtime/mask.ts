// One masking function for text that may carry credentials: vendor error messages relayed to
// callers (problem detail, template output) and written to logs. Masking by field name is not
// enough: a vendor may copy the caller's token into a free-text message.

import { isSecretKey } from '../config/env-keys.ts';
import type { ValuesFile } from '../config/values.ts';

/** Longest vendor text relayed in an error or a log line. */
export const MAX_TEXT = 500;

/** `abcd****`: enough to tell two secrets apart, never enough to use one. */
export function maskSecret(v: unknown): string {
  if (v === undefined || v === null) return String(v);
  const s = String(v);
  if (s.length <= 8) return '****';
  const scheme = /^(Bearer|Basic)\s+/i.exec(s);
  if (scheme) return `${scheme[0]}${s.slice(scheme[0].length, scheme[0].length + 4)}****`;
  return `${s.slice(0, 4)}****`;
}

// `Bearer <token>`, JWT-shaped strings (a base64url JSON header starts `eyJ`; no word boundary
// needed, a token glued to text is still a token) and gateway subscription keys (`gk_` + base64url,
// engine/gateway/keys.ts). The lookaheads skip what is masked already (`abcd****`), so masking twice
// changes nothing.
const CREDENTIAL = new RegExp([
  String.raw`\b(?:[Bb]earer|BEARER)\s+(?![A-Za-z0-9\-._~+/]*=*\*{4})[A-Za-z0-9\-._~+/]+=*`,
  String.raw`eyJ(?![A-Za-z0-9_.-]*\*{4})[A-Za-z0-9_-]{7,}(?:\.[A-Za-z0-9_-]*){0,2}`,
  String.raw`\bgk_(?![A-Za-z0-9_-]*\*{4})[A-Za-z0-9_-]{16,}`,
].join('|'), 'g');
const ELLIPSIS = '…';

/**
 * Masks credentials in a text and bounds its length. `secrets` are literal values (configured
 * secrets, the headers a call sent) masked wherever they appear.
 */
export function maskText(text: string, secrets: readonly string[] = [], max = MAX_TEXT): string {
  // masking a 32 MB vendor answer would cost for nothing: only the first `max` characters survive,
  // and a margin keeps a token cut at this first boundary recognisable
  let s = text.length > max + 2048 ? text.slice(0, max + 2048) : text;
  for (const secret of secrets) if (s.includes(secret)) s = s.split(secret).join(maskSecret(secret));
  s = s.replace(CREDENTIAL, (m) => maskSecret(m));
  return s.length > max ? s.slice(0, max) + ELLIPSIS : s;
}

/** maskText over every string of a parsed JSON value (vendor error bodies); depth-bounded. */
export function maskDeep(v: unknown, secrets: readonly string[] = [], max = MAX_TEXT, depth = 0): unknown {
  if (typeof v === 'string') return maskText(v, secrets, max);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= 16) return '[nested too deep]';
  if (Array.isArray(v)) return v.map((x) => maskDeep(x, secrets, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[maskText(k, secrets, max)] = maskDeep((v as Record<string, unknown>)[k], secrets, max, depth + 1);
  return out;
}

/** Headers that carry credentials of the caller or of the connector. */
export function isSecretHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'authorization' || n === 'proxy-authorization' || n === 'cookie' || n === 'ocp-gateway-subscription-key'
    || n === 'x-api-key' || isSecretKey(n);
}

/** The credential of a header value, without its scheme (`Bearer abc` -> `abc`): what a vendor may echo. */
export function credentialOf(value: string): string {
  const m = /^[A-Za-z]+\s+(\S+)$/.exec(value);
  return m ? m[1] : value;
}

/**
 * The values of the secret environmental keys a values file refers to (`${achvendor-client-key}`),
 * resolved at load time so steps can mask them in vendor text. Short values are left out: masking
 * every `abc` in a message would hide more than it protects.
 */
export function configuredSecrets(values: ValuesFile | undefined): string[] {
  if (!values) return [];
  const out = new Set<string>();
  for (const [key, p] of values.props) {
    if (typeof p.value !== 'string' || !p.value.includes('${')) continue;
    const refs = [...p.value.matchAll(/\$\{([A-Za-z0-9_.-]+)\}/g)].map((m) => m[1]);
    if (!refs.some(isSecretKey)) continue;
    let v: unknown;
    try { v = values.get(key); } catch { continue; /* unset: reported where a route uses it */ }
    if (typeof v === 'string' && v.length >= 6 && !v.includes('<unresolved:')) out.add(v);
  }
  return [...out];
}
