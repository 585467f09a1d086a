// The engine imports undici's Agent and EnvHttpProxyAgent by their files, not through the
// package's index (engine/outbound/undici-dispatchers.ts). They must be the package's own classes,
// with the request API the index adds to every dispatcher (the proxy agent connects through it;
// test/hubvendor-payment/proxy.test.ts calls a vendor through a proxy).

import { describe, expect, it } from 'vitest';
import { Agent, EnvHttpProxyAgent } from '../../engine/outbound/undici-dispatchers.ts';

describe("undici's dispatchers without its index", () => {
  it('have the request API before anything loads the index', () => {
    const agent = new Agent();
    for (const m of ['request', 'stream', 'pipeline', 'upgrade', 'connect'] as const)
      expect(typeof agent[m], m).toBe('function');
    void agent.close();
  });

  it('are the classes the package exports (the lock file pins the version these paths belong to)', async () => {
    const undici = await import('undici');
    expect(Agent).toBe(undici.Agent);
    expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
  });
});
