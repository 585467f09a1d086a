// A client with `proxy: true` reaches its vendor through the proxy the environment names
// (HTTPS_PROXY for https, HTTP_PROXY for http, NO_PROXY for exceptions: what undici's
// EnvHttpProxyAgent reads in a run). The dry-run then checks what the run depends on: the proxy's
// name and port, then a CONNECT tunnel to the vendor through it (the way undici's proxy agent
// sends every request), then TLS with the vendor inside that tunnel. The proxy's credentials go
// in its Proxy-Authorization header and are never printed.

import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { timed, type CheckResult, type Outcome } from './check.ts';
import { checkEndpoint, endpointOf, hostPort, tlsHandshake, type Endpoint } from './net.ts';

const TIMEOUT_MS = 5000;

export interface Proxy extends Endpoint {
  /** `user:password` of the proxy URL, sent as Basic credentials (never printed) */
  auth?: string;
}

/** Whether NO_PROXY exempts the host: `*`, a name, `.suffix` or `suffix` (its subdomains), with an optional port. */
function exempt(vendor: Endpoint, noProxy: string): boolean {
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === '*') return true;
      const m = /^(.*?)(?::(\d+))?$/.exec(entry)!;
      if (m[2] && Number(m[2]) !== vendor.port) return false;
      const name = m[1]!.replace(/^\*?\./, '').toLowerCase();
      const host = vendor.host.toLowerCase();
      return host === name || host.endsWith(`.${name}`);
    });
}

/** The proxy a run would send this vendor's calls through, or undefined (none set, or NO_PROXY exempts it). */
export function proxyFor(url: string, env: NodeJS.ProcessEnv = process.env): Proxy | undefined {
  const vendor = endpointOf(url);
  if (!vendor) return undefined;
  const https = url.startsWith('https:');
  const raw = https ? (env.https_proxy ?? env.HTTPS_PROXY) : (env.http_proxy ?? env.HTTP_PROXY);
  if (!raw || exempt(vendor, env.no_proxy ?? env.NO_PROXY ?? '')) return undefined;
  const at = endpointOf(raw);
  if (!at) return undefined;
  const u = new URL(raw);
  const auth = u.username ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined;
  return { ...at, ...(auth ? { auth } : {}) };
}

/** The proxy's dns and tcp (and tls for an https proxy), then the tunnel to the vendor and its tls. */
export async function checkThroughProxy(name: string, proxy: Proxy, vendor: Endpoint): Promise<CheckResult[]> {
  const { auth: _auth, ...at } = proxy;
  const net = (await checkEndpoint(name, at)).map((r) => ({ ...r, reason: `proxy: ${r.reason}` }));
  if (net.some((r) => r.status === 'FAIL')) return net;
  let socket: Socket | undefined;
  const tunnel = await timed('tunnel', name, hostPort(vendor), async (): Promise<Outcome> => {
    socket = await connectThrough(proxy, vendor);
    return { status: 'ok', reason: `through the proxy ${hostPort(at)}` };
  });
  if (tunnel.status === 'FAIL' || !vendor.tls) {
    socket?.destroy();
    return [...net, tunnel];
  }
  const tls = await timed('tls', name, hostPort(vendor), () => tlsHandshake(vendor, socket));
  return [...net, tunnel, tls];
}

/** A CONNECT to the vendor's host:port through the proxy: the open tunnel, or why the proxy refused it. */
function connectThrough(proxy: Proxy, vendor: Endpoint): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = (proxy.tls ? httpsRequest : request)({
      host: proxy.host,
      port: proxy.port,
      method: 'CONNECT',
      path: hostPort(vendor),
      headers: {
        host: hostPort(vendor),
        ...(proxy.auth ? { 'proxy-authorization': `Basic ${Buffer.from(proxy.auth).toString('base64')}` } : {}),
      },
      timeout: TIMEOUT_MS,
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      const why =
        res.statusCode === 407
          ? proxy.auth
            ? 'the proxy refused its credentials (407)'
            : 'the proxy asks for credentials (407): give them in the proxy URL'
          : `the proxy answered ${res.statusCode} to CONNECT`;
      reject(new Error(why));
    });
    req.once('timeout', () => {
      req.destroy();
      reject(new Error(`no answer from the proxy within ${TIMEOUT_MS} ms`));
    });
    req.once('error', (err) => reject(new Error(`proxy: ${err.message}`)));
    req.end();
  });
}
