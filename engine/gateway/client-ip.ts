// The client address for per-IP limits: the socket's peer, or, when that peer is a trusted proxy,
// the right-most X-Forwarded-For entry that is not itself a trusted proxy. A client can put
// anything into X-Forwarded-For; only what trusted proxies appended counts.

import { BlockList, isIP } from 'node:net';

export class ClientIp {
  private trusted = new BlockList();
  private any: boolean;

  constructor(proxies: string[]) {
    this.any = proxies.length > 0;
    for (const p of proxies) {
      const [addr, bits] = p.split('/');
      const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (!isIP(addr)) throw new Error(`gateway.trustedProxies: '${p}' is not an address or CIDR`);
      if (bits !== undefined) this.trusted.addSubnet(addr, Number(bits), type);
      else this.trusted.addAddress(addr, type);
    }
  }

  private isTrusted(addr: string): boolean {
    const v = isIP(addr);
    return v !== 0 && this.trusted.check(addr, v === 6 ? 'ipv6' : 'ipv4');
  }

  of(remote: string | undefined, xff: string | string[] | undefined): string {
    const peer = normalise(remote ?? 'unknown');
    if (!this.any || !xff || !this.isTrusted(peer)) return peer;
    const hops = (Array.isArray(xff) ? xff.join(',') : xff).split(',').map((s) => normalise(s.trim())).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!isIP(hops[i])) return peer;
      if (!this.isTrusted(hops[i])) return hops[i];
    }
    return hops[0] ?? peer;
  }
}

function normalise(a: string): string {
  return a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}
