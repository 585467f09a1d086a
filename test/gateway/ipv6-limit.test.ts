// The anonymous per-IP limit keys an IPv6 client on its network (gateway.rateLimits.ipv6Prefix, /64
// by default), so one host rotating addresses within its /64 shares one budget; IPv4 clients keep
// one budget per address, also when the proxy appends the client's port. Over real HTTP, the
// client address coming from a trusted proxy.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayTestEngine } from './helpers.ts';
import { ClientIp, ipv6Network } from '../../engine/gateway/client-ip.ts';
import { loadValues } from '../../engine/config/values.ts';
import { readSettings } from '../../engine/gateway/config.ts';

describe('the anonymous limit of IPv6 clients (3 per window, /64)', () => {
  let e: GatewayTestEngine;
  beforeAll(async () => {
    e = await startGateway({ 'gateway.rateLimits.anonymous': '3', 'gateway.trustedProxies': '127.0.0.1' });
  });
  afterAll(async () => {
    await e?.close();
  });

  const ping = (ip: string) => e.rpc('ping', undefined, { 'x-forwarded-for': ip });

  it('addresses of one /64 share a budget; another /64 has its own', async () => {
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:aaaa:bbbb:cccc:dddd'])
      expect((await ping(ip)).status, ip).toBe(200);
    const over = await ping('2001:db8:1:2:ffff:ffff:ffff:ffff');
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    // the same network spelled otherwise is the same client
    expect((await ping('2001:DB8:1:2:0:0:0:9')).status).toBe(429);
    expect((await ping('2001:db8:1:3::1')).status).toBe(200);
  });

  it('IPv4 clients keep one budget per address', async () => {
    for (let i = 0; i < 3; i++) expect((await ping('198.51.100.10')).status).toBe(200);
    expect((await ping('198.51.100.10')).status).toBe(429);
    expect((await ping('198.51.100.11')).status).toBe(200);
  });

  it('an X-Forwarded-For entry with a port (Azure Application Gateway appends one) counts by its address', async () => {
    // two clients behind the proxy: each its own budget, whatever its source port
    for (const port of [5555, 5556, 5557]) expect((await ping(`198.51.100.20:${port}`)).status, String(port)).toBe(200);
    expect((await ping('198.51.100.20:6000')).status).toBe(429);
    expect((await ping('198.51.100.21:5555')).status).toBe(200);
    // IPv6 in brackets, with or without a port; the proxy's own hop after the client's
    for (const hop of ['[2001:db8:5::1]:5555', '[2001:db8:5::2]', '[2001:db8:5::3]:4711, 127.0.0.1:443'])
      expect((await ping(hop)).status, hop).toBe(200);
    expect((await ping('[2001:db8:5::4]:1')).status).toBe(429);
    expect((await ping('[2001:db8:6::1]:5555')).status).toBe(200);
    // an anonymous entry the port does not make an address: the proxy's peer address counts
    expect(new ClientIp(['127.0.0.1']).of('127.0.0.1', 'unknown:5555')).toBe('127.0.0.1');
    expect(new ClientIp(['127.0.0.1']).of('127.0.0.1', '[::ffff:192.0.2.9]:80')).toBe('192.0.2.9');
  });
});

describe('the network of an address', () => {
  it('keeps the prefix bits in one spelling', () => {
    expect(ipv6Network('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64)).toBe('2001:db8:1:2::/64');
    expect(ipv6Network('2001:DB8:1:2::1', 64)).toBe('2001:db8:1:2::/64');
    expect(ipv6Network('2001:db8:1:2ff::', 56)).toBe('2001:db8:1:200::/56');
    expect(ipv6Network('fe80::1%eth0', 64)).toBe('fe80:0:0:0::/64');
    expect(ipv6Network('64:ff9b::192.0.2.1', 128)).toBe('64:ff9b:0:0:0:0:c000:201/128');
    expect(ipv6Network('::1', 128)).toBe('0:0:0:0:0:0:0:1/128');
  });

  it('the limit key: IPv6 by the configured prefix, IPv4 and IPv4-mapped by address', () => {
    expect(new ClientIp([]).limitKey('2001:db8::5', undefined)).toBe('2001:db8:0:0::/64');
    expect(new ClientIp([], 48).limitKey('2001:db8:7:8::5', undefined)).toBe('2001:db8:7::/48');
    expect(new ClientIp([], 128).limitKey('2001:db8::5', undefined)).not.toBe(
      new ClientIp([], 128).limitKey('2001:db8::6', undefined),
    );
    expect(new ClientIp([]).limitKey('::ffff:192.0.2.7', undefined)).toBe('192.0.2.7');
    // through a trusted proxy the forwarded client counts
    expect(new ClientIp(['10.0.0.0/8']).limitKey('10.1.1.1', '2001:db8:9:9::abcd')).toBe('2001:db8:9:9::/64');
  });
});

describe('gateway.rateLimits.ipv6Prefix', () => {
  const settings = (set: Record<string, string>) => {
    const values = loadValues({ dir: 'values', env: 'sandbox', processEnv: {}, lenient: true, set });
    values.keys.setSimulatorUrls(new Proxy({}, { get: (_t, name) => `http://127.0.0.1:9/${String(name)}` }));
    return readSettings(values);
  };

  it('is 64 in the shipped values and can be set', () => {
    expect(settings({}).ipv6Prefix).toBe(64);
    expect(settings({ 'gateway.rateLimits.ipv6Prefix': '56' }).ipv6Prefix).toBe(56);
  });

  it('anything but a whole number from 1 to 128 is refused at start, naming the setting', () => {
    for (const bad of ['0', '129', '64.5', 'sixty-four']) {
      expect(() => settings({ 'gateway.rateLimits.ipv6Prefix': bad }), bad).toThrow(/rateLimits\.ipv6Prefix/);
    }
  });
});
