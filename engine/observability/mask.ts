// One masking function for text that may carry credentials: vendor error messages relayed to
// callers (problem detail, template output) and written to logs. Masking by field name is not
// enough: a vendor may copy the caller's token into a free-text message.

import { isSecretKey } from '../config/env-keys.ts';
import type { ValuesFile, ValuesSet } from '../config/values.ts';
import { MIN_SECRET, secretForms } from './secret-forms.ts';
import { FewForms, mergeHits, SecretSearch, type FormSearch } from './secret-search.ts';

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

/**
 * An account number shown to a person (an IBAN, a PAN): the first four and last four characters,
 * enough to recognise one's own account, never the whole number; short ones entirely masked.
 */
export function maskAccount(v: unknown): string {
  const s = String(v ?? '').replace(/\s+/g, '');
  return s.length <= 8 ? '****' : `${s.slice(0, 4)}****${s.slice(-4)}`;
}

// `Bearer <token>`, JWT-shaped strings (a base64url JSON header starts `eyJ`; no word boundary
// needed, a token glued to text is still a token) and gateway subscription keys (`gk_` + base64url,
// engine/gateway/keys.ts). The lookaheads skip what is masked already (`abcd****`), so masking twice
// changes nothing.
const CREDENTIAL = new RegExp(
  [
    String.raw`\b(?:[Bb]earer|BEARER)\s+(?![A-Za-z0-9\-._~+/]*=*\*{4})[A-Za-z0-9\-._~+/]+=*`,
    String.raw`eyJ(?![A-Za-z0-9_.-]*\*{4})[A-Za-z0-9_-]{7,}(?:\.[A-Za-z0-9_-]*){0,2}`,
    String.raw`\bgk_(?![A-Za-z0-9_-]*\*{4})[A-Za-z0-9_-]{16,}`,
  ].join('|'),
  'g',
);
const ELLIPSIS = '…';

/**
 * Literal secrets (configured secrets, the credentials a call sent) with every form of each
 * (secret-forms.ts), searched in one pass over a text (secret-search.ts). Compiled when the
 * secrets are known (`compileSecrets`, at load time), never per masked text.
 */
export class Secrets {
  /** @internal use compileSecrets */
  constructor(
    readonly values: readonly string[],
    private readonly searches: readonly FormSearch[] = [],
  ) {}

  /**
   * These secrets and `extra` (the credentials one call sent): the new ones are searched form by
   * form, without tables to build for a text searched once; cached per distinct set.
   */
  with(extra: readonly string[]): Secrets {
    const known = new Set(this.values);
    const added = [
      ...new Set(extra.filter((v) => typeof v === 'string' && v.length >= MIN_SECRET && !known.has(v))),
    ].sort();
    if (!added.length) return this;
    const key = `${this.values.join('\0')}\u0001${added.join('\0')}`;
    return cached(
      key,
      () => new Secrets([...this.values, ...added], [...this.searches, new FewForms(added.flatMap(secretForms))]),
    );
  }

  /** `text` with every form of these secrets masked (`abcd****`, as the form was written). */
  mask(text: string): string {
    let hits: number[] | undefined;
    for (const s of this.searches) hits = mergeHits(hits, s.find(text));
    if (!hits) return text;
    let out = '';
    let at = 0;
    for (let i = 0; i < hits.length; i += 2) {
      out += text.slice(at, hits[i]) + maskSecret(text.slice(hits[i], hits[i + 1]));
      at = hits[i + 1];
    }
    return out + text.slice(at);
  }
}

/** Credential shapes only. */
export const NO_SECRETS = new Secrets([]);

// compiled sets by their values: the steps of a route share one, a call's credentials recur.
// Process-wide on purpose: keyed by the values themselves and immutable, so engines share only equal sets
const compiled = new Map<string, Secrets>();
function cached(key: string, make: () => Secrets): Secrets {
  let s = compiled.get(key);
  if (s) compiled.delete(key);
  else s = make();
  if (compiled.size >= 64) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, s);
  return s;
}

/** Compiles literal secrets for maskText (load time); values shorter than MIN_SECRET characters are left out. */
export function compileSecrets(values: readonly string[]): Secrets {
  const kept = [...new Set(values.filter((v) => typeof v === 'string' && v.length >= MIN_SECRET))].sort();
  if (!kept.length) return NO_SECRETS;
  return cached(kept.join('\0'), () => new Secrets(kept, [new SecretSearch(kept.flatMap(secretForms))]));
}

/**
 * Masks credentials in a text and bounds its length: every form of the compiled `secrets`, then
 * the shapes CREDENTIAL recognises (skipping what is masked already).
 */
export function maskText(text: string, secrets: Secrets = NO_SECRETS, max = MAX_TEXT): string {
  // masking a 32 MB vendor answer would cost for nothing: only the first `max` characters survive,
  // and a margin keeps a token cut at this first boundary recognisable
  let s = text.length > max + 2048 ? text.slice(0, max + 2048) : text;
  s = secrets.mask(s).replace(CREDENTIAL, maskSecret);
  return s.length > max ? s.slice(0, max) + ELLIPSIS : s;
}

/** maskText over every string of a parsed JSON value (vendor error bodies); depth-bounded. */
export function maskDeep(v: unknown, secrets: Secrets = NO_SECRETS, max = MAX_TEXT, depth = 0): unknown {
  if (typeof v === 'string') return maskText(v, secrets, max);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= 16) return '[nested too deep]';
  if (Array.isArray(v)) return v.map((x) => maskDeep(x, secrets, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v))
    out[maskText(k, secrets, max)] = maskDeep((v as Record<string, unknown>)[k], secrets, max, depth + 1);
  return out;
}

/** Headers that carry credentials of the caller or of the connector. */
export function isSecretHeader(name: string): boolean {
  const n = name.toLowerCase();
  return (
    n === 'authorization' ||
    n === 'proxy-authorization' ||
    n === 'cookie' ||
    n === 'ocp-gateway-subscription-key' ||
    n === 'x-api-key' ||
    isSecretKey(n)
  );
}

// credential headers beyond isSecretHeader's: signatures, API and subscription keys, sessions
const CREDENTIAL_HEADER = /signature|subscription-key|api[-_]?key|session|set-cookie|x-auth/i;

/**
 * Headers never kept with a stored input (a failed exchange, the outbox's copy of a webhook): they
 * carry, or may carry, a credential, and a replay never needs them (the input was verified on arrival).
 */
export function isCredentialHeader(name: string): boolean {
  return isSecretHeader(name) || CREDENTIAL_HEADER.test(name);
}

/** The credential of a header value, without its scheme (`Bearer abc` -> `abc`): what a vendor may echo. */
export function credentialOf(value: string): string {
  const m = /^[A-Za-z]+\s+(\S+)$/.exec(value);
  return m ? m[1] : value;
}

/**
 * The values of the secret environmental keys a values file refers to (`${acme-client-key}`),
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
    try {
      // unset: undefined, reported where a route uses it
      v = values.getIfResolved(key);
    } catch {
      continue;
    }
    if (typeof v === 'string' && v.length >= MIN_SECRET && !v.includes('<unresolved:')) out.add(v);
  }
  return [...out];
}

/** The configured secrets of every values file of a project. */
export function valuesSecrets(values: ValuesSet): string[] {
  return [...new Set([...values.files.values()].flatMap((f) => configuredSecrets(f)))];
}
