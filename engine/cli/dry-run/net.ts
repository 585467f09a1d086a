// DNS, TCP and TLS checks of one endpoint: the name resolves, a connection opens, and (for https
// and amqps) the TLS handshake succeeds with a certificate the process trusts, whose expiry is
// near (under WARN_DAYS) or not. Nothing is sent over the connection.

import { lookup } from 'node:dns/promises';
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { timed, type CheckResult } from './check.ts';

/** A certificate expiring sooner than this many days is a warning. */
const WARN_DAYS = 30;
const TIMEOUT_MS = 5000;

export interface Endpoint {
  host: string;
  port: number;
  tls: boolean;
}

/** The endpoint of an http(s) or amqp(s) URL; undefined when the URL does not parse. */
export function endpointOf(url: string): Endpoint | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const tls = u.protocol === 'https:' || u.protocol === 'amqps:';
  const defaults: Record<string, number> = { 'http:': 80, 'https:': 443, 'amqp:': 5672, 'amqps:': 5671 };
  const port = u.port ? Number(u.port) : defaults[u.protocol];
  if (!port) return undefined;
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port, tls };
}

export const hostPort = (e: Endpoint) => (isIP(e.host) === 6 ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`);

/** The dns, tcp and (when TLS) tls checks; after a failure the later ones are not tried. */
export async function checkEndpoint(name: string, e: Endpoint): Promise<CheckResult[]> {
  const target = hostPort(e);
  let address = e.host;
  const dns = await timed('dns', name, target, async () => {
    if (isIP(e.host)) return { status: 'ok', reason: 'an IP address, nothing to resolve' };
    try {
      address = (await lookup(e.host)).address;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(
        code === 'ENOTFOUND' ? `DNS: no such host '${e.host}'` : `DNS: '${e.host}' does not resolve (${code})`,
        { cause: err },
      );
    }
    return { status: 'ok', reason: `resolves to ${address}` };
  });
  if (dns.status === 'FAIL') return [dns];
  const tcp = await timed('tcp', name, target, () => tcpOpen(address, e.port));
  if (tcp.status === 'FAIL' || !e.tls) return [dns, tcp];
  return [dns, tcp, await timed('tls', name, target, () => tlsHandshake(e))];
}

function tcpOpen(address: string, port: number): Promise<{ status: 'ok'; reason: string }> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect({ host: address, port, timeout: TIMEOUT_MS });
    s.once('connect', () => {
      s.destroy();
      resolve({ status: 'ok', reason: 'connection opened' });
    });
    s.once('timeout', () => {
      s.destroy();
      reject(new Error(`no connection within ${TIMEOUT_MS} ms`));
    });
    s.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'ECONNREFUSED' ? 'connection refused (nothing listens there)' : err.message)),
    );
  });
}

/** The TLS handshake with `e`, over `socket` when given (a proxy's tunnel), else a connection of its own. */
export function tlsHandshake(e: Endpoint, socket?: Socket): Promise<{ status: 'ok' | 'warn'; reason: string }> {
  return new Promise((resolve, reject) => {
    // by the configured name, which the certificate must carry (not the address it resolved to)
    const s = tlsConnect({
      ...(socket ? { socket } : { host: e.host, port: e.port }),
      ...(isIP(e.host) ? {} : { servername: e.host }),
      timeout: TIMEOUT_MS,
    });
    s.once('secureConnect', () => {
      const cert = s.getPeerCertificate();
      s.destroy();
      socket?.destroy();
      const expires = new Date(cert.valid_to);
      const days = Math.floor((expires.getTime() - Date.now()) / 86_400_000);
      const when = expires.toISOString().slice(0, 10);
      const subject = cert.subject?.CN ? `certificate of ${cert.subject.CN}` : 'certificate';
      if (days < WARN_DAYS)
        resolve({ status: 'warn', reason: `${subject} expires ${when}: ${days} day(s) left (under ${WARN_DAYS})` });
      else resolve({ status: 'ok', reason: `${subject} expires ${when}: ${days} day(s) left` });
    });
    s.once('timeout', () => {
      s.destroy();
      socket?.destroy();
      reject(new Error(`no TLS handshake within ${TIMEOUT_MS} ms`));
    });
    s.once('error', (err: NodeJS.ErrnoException) => {
      socket?.destroy();
      reject(new Error(`TLS: ${err.message}`));
    });
  });
}
