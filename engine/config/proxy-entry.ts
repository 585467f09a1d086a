// A trusted proxy as configured (gateway.trustedProxies, engine.server.trustProxy): checked when
// the values and the environment load, so a wrong entry is a diagnostic at its line rather than a
// failure of the running engine.

import { isIP } from 'node:net';

export interface TrustedProxy {
  addr: string;
  bits?: number;
  type: 'ipv4' | 'ipv6';
}

/**
 * One gateway.trustedProxies / engine.server.trustProxy entry: an address (`10.0.0.5`,
 * `2001:db8::5`) or a CIDR (`10.0.0.0/8`, `2001:db8::/32`) with a whole prefix in range, or why not.
 * `10.0.0.0/` is refused rather than read as /0 (which would trust every peer).
 */
export function parseProxy(entry: string): TrustedProxy | string {
  const [addr, bits, ...rest] = entry.split('/');
  const v = isIP(addr);
  if (!v || rest.length)
    return `'${entry}' is not an IPv4 or IPv6 address or CIDR (such as 10.0.0.5, 10.0.0.0/8, 2001:db8::/32)`;
  const type = v === 6 ? 'ipv6' : 'ipv4';
  if (bits === undefined) return { addr, type };
  const max = v === 6 ? 128 : 32;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max)
    return `'${entry}': the prefix length of an ${type === 'ipv6' ? 'IPv6' : 'IPv4'} CIDR is a whole number from 0 to ${max}`;
  return { addr, bits: Number(bits), type };
}
