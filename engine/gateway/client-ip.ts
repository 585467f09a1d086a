// The client address for per-IP limits: the socket's peer, or, when that peer is a trusted proxy,
// the right-most X-Forwarded-For entry that is not itself a trusted proxy. A client can put
// anything into X-Forwarded-For; only what trusted proxies appended counts. An entry may carry the
// client's port (`1.2.3.4:5555`, `[2001:db8::1]:5555`: Azure Application Gateway appends one); the
// port is dropped, or every such client would fall back to the proxy's address and share its
// budget. The per-IP limit keys an IPv6 client on its prefix (a host is handed a whole /64 and
// could rotate addresses in it).

import { BlockList, isIP } from 'node:net';
import { parseProxy } from '../config/proxy-entry.ts';

export class ClientIp {
  private trusted = new BlockList();
  private any: boolean;

  /** `ipv6Prefix`: bits of an IPv6 address that name one client for the limits (default /64) */
  constructor(
    proxies: string[],
    private ipv6Prefix = 64,
  ) {
    this.any = proxies.length > 0;
    for (const p of proxies) {
      const t = parseProxy(p);
      // the settings were checked at load (config.ts): this is a caller's bug, not a user's
      if (typeof t === 'string') throw new Error(`gateway.trustedProxies: ${t}`);
      if (t.bits !== undefined) this.trusted.addSubnet(t.addr, t.bits, t.type);
      else this.trusted.addAddress(t.addr, t.type);
    }
  }

  /** The socket peer is one of gateway.trustedProxies (its X-Forwarded-* headers count). */
  peerIsProxy(remote: string | undefined): boolean {
    return this.any && this.isTrusted(normalise(remote ?? ''));
  }

  private isTrusted(addr: string): boolean {
    const v = isIP(addr);
    return v !== 0 && this.trusted.check(addr, v === 6 ? 'ipv6' : 'ipv4');
  }

  of(remote: string | undefined, xff: string | string[] | undefined): string {
    const peer = normalise(remote ?? 'unknown');
    if (!this.any || !xff || !this.isTrusted(peer)) return peer;
    const hops = (Array.isArray(xff) ? xff.join(',') : xff)
      .split(',')
      .map((s) => normalise(withoutPort(s.trim())))
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!isIP(hops[i])) return peer;
      if (!this.isTrusted(hops[i])) return hops[i];
    }
    return hops[0] ?? peer;
  }

  /** The client as a rate-limit key: the address, or for IPv6 its network (`2001:db8:1:2::/64`). */
  limitKey(remote: string | undefined, xff: string | string[] | undefined): string {
    const a = this.of(remote, xff);
    return isIP(a) === 6 ? ipv6Network(a, this.ipv6Prefix) : a;
  }
}

/** The network of a valid IPv6 address: its first `bits` bits, the rest zero, in one spelling. */
export function ipv6Network(addr: string, bits: number): string {
  let a = addr.split('%')[0];
  // an IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) as its two hex groups
  const v4 = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (v4) {
    const o = v4.slice(2).map(Number);
    a = `${v4[1]}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const [head, tail] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const kept: string[] = [];
  for (let i = 0; i * 16 < bits; i++) {
    const left = bits - i * 16;
    const mask = left >= 16 ? 0xffff : (0xffff << (16 - left)) & 0xffff;
    kept.push((parseInt(groups[i], 16) & mask).toString(16));
  }
  return `${kept.join(':')}${kept.length < 8 ? '::' : ''}/${bits}`;
}

/** An X-Forwarded-For entry without the port a proxy may append (`1.2.3.4:5555`, `[::1]:5555`, `[::1]`). */
function withoutPort(hop: string): string {
  if (hop.startsWith('[')) {
    const m = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop);
    return m ? m[1] : hop;
  }
  // one colon: IPv4 with a port (a bare IPv6 address has at least two)
  const c = hop.indexOf(':');
  return c > 0 && c === hop.lastIndexOf(':') && /^\d{1,5}$/.test(hop.slice(c + 1)) ? hop.slice(0, c) : hop;
}

function normalise(a: string): string {
  return a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}
