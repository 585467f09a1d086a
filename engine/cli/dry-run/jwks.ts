// The key set of the gateway's JWT settings, fetched as the gateway fetches it (OIDC discovery,
// then its jwks_uri; or jwt.jwksUri; or the jwt.jwksFile) and parsed: each signing key must import.

import { readFileSync } from 'node:fs';
import { importJWK, type JWK } from 'jose';
import { getJson } from '../../gateway/get-json.ts';
import type { JwtSettings } from '../../gateway/config.ts';
import type { Outcome } from './check.ts';

const TIMEOUT_MS = 5000;

/** getJson, its connection errors naming the URL as its HTTP ones do. */
async function get(url: string): Promise<unknown> {
  try {
    return await getJson(url, TIMEOUT_MS);
  } catch (e) {
    const m = (e as Error).message;
    throw m.startsWith('GET ') ? e : new Error(`GET ${url}: ${m}`, { cause: e });
  }
}

/** Where the keys come from, for the target column; undefined when the settings name no key set. */
export function jwksSource(s: JwtSettings): string | undefined {
  return s.discoveryUrl ?? s.jwksUri ?? s.jwksFile;
}

export async function checkJwks(s: JwtSettings): Promise<Outcome> {
  let doc: unknown;
  let from: string;
  if (s.jwksFile && !s.discoveryUrl && !s.jwksUri) {
    from = s.jwksFile;
    doc = JSON.parse(readFileSync(s.jwksFile, 'utf8'));
  } else {
    let uri = s.jwksUri;
    if (!uri) {
      const d = (await get(s.discoveryUrl!)) as { issuer?: unknown; jwks_uri?: unknown } | null;
      if (d?.issuer !== s.issuer)
        throw new Error(`discovery document issuer '${String(d?.issuer)}' is not the configured issuer '${s.issuer}'`);
      if (typeof d.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
      uri = d.jwks_uri;
    }
    from = uri;
    doc = await get(uri);
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error(`${from}: the key set has no keys array`);
  const signing = (keys as JWK[]).filter((k) => !k.d && (k.use === undefined || k.use === 'sig'));
  if (!signing.length) throw new Error(`${from}: no public signing key in the key set`);
  for (const k of signing) {
    try {
      await importJWK(k, k.alg ?? algFor(k));
    } catch (e) {
      throw new Error(`${from}: key '${k.kid ?? '(no kid)'}' does not import: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }
  return { status: 'ok', reason: `${signing.length} signing key(s) from ${from}` };
}

/** An algorithm to import a key that names none, from its type. */
function algFor(k: JWK): string {
  if (k.kty === 'EC') return { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[k.crv ?? ''] ?? 'ES256';
  if (k.kty === 'OKP') return 'EdDSA';
  return 'RS256';
}
