// Subscription keys: stored as SHA-256 digests, compared in constant time against every stored
// digest (no early exit, so timing says nothing about which key or how much of it matched).

import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Subscription } from './config.ts';

export const KEY_HEADER = 'ocp-gateway-subscription-key';

function hashKey(key: string): Buffer {
  // one-shot hash: no Hash object per request
  return hash('sha256', key, 'buffer');
}

export function keyEntry(key: string): string {
  return `sha256:${hashKey(key).toString('hex')}`;
}

/** A new subscription key: 32 random bytes, base64url, with a recognisable prefix. */
export function newKey(): string {
  return `gk_${randomBytes(32).toString('base64url')}`;
}

/** A stored key: its digest, its subscription and its id (the digest's first 12 hex digits: never the key). */
export interface KeyEntry {
  hash: Buffer;
  sub: Subscription;
  id: string;
}

export class KeyRing {
  private entries: KeyEntry[] = [];

  constructor(subs: Subscription[]) {
    for (const sub of subs)
      for (const hash of sub.hashes) this.entries.push({ hash, sub, id: hash.toString('hex').slice(0, 12) });
  }

  get size(): number {
    return this.entries.length;
  }

  /** The subscription of a presented key, or undefined. */
  match(key: string): Subscription | undefined {
    return this.lookup(key)?.sub;
  }

  /** The stored entry of a presented key (its subscription and id), or undefined. */
  lookup(key: string): KeyEntry | undefined {
    if (key.length === 0 || key.length > 512) return undefined;
    const h = hashKey(key);
    let found: KeyEntry | undefined;
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) {
      // every entry is compared, whatever matched before
      if (timingSafeEqual(h, entries[i].hash) && !found) found = entries[i];
    }
    return found;
  }
}
