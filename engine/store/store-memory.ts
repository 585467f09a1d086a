// The store of one process: done keys in a bounded TtlSet, in-flight claims in a Set (an exchange
// always completes or releases in the same process, so claims need no expiry here).

import { TtlMap, TtlSet } from './ttl-set.ts';
import type { Claim, ClaimSet, ClaimSetOptions, RecordSet, RecordSetOptions, SharedStore } from './store.ts';

const CLAIMED: Claim = { state: 'claimed', token: '' };
const DONE: Claim = { state: 'done' };
const BUSY: Claim = { state: 'busy' };

class MemoryClaims implements ClaimSet {
  private done: TtlSet;
  private inFlight = new Set<string>();

  constructor(opts: ClaimSetOptions) {
    this.done = new TtlSet(opts.ttlMs, opts.maxKeys);
  }

  claim(key: string): Claim {
    if (this.done.has(key)) return DONE;
    if (this.inFlight.has(key)) return BUSY;
    this.inFlight.add(key);
    return CLAIMED;
  }

  complete(key: string): void {
    this.inFlight.delete(key);
    this.done.add(key);
  }

  release(key: string): void {
    this.inFlight.delete(key);
  }
}

export class MemoryStore implements SharedStore {
  readonly kind = 'memory';

  /** Each use gets its own set (its own bound), as before the store existed. */
  claims(opts: ClaimSetOptions): ClaimSet {
    return new MemoryClaims(opts);
  }

  records(opts: RecordSetOptions): RecordSet {
    return new TtlMap(opts.ttlMs, opts.maxKeys);
  }

  async close(): Promise<void> {
    /* nothing held outside the sets */
  }
}
