// The host names the console answers to. A page on another site can make a browser send requests
// to the console by pointing its own name at the engine's address (DNS rebinding): the browser
// then sends `Host: evil.example:8080` and an `Origin` to match, and treats the answers as that
// site's. So every console request must name one of the listener's own hosts (loopback, the
// address the engine was told to listen on, `engine.console.allowedHosts`), and an `Origin`, when
// sent, must be that same host (docs/console.md#protection).

import { isIPv6 } from 'node:net';

/** Always allowed: a remote page cannot get a browser to send these names to another machine. */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
/** Listen addresses that stand for every interface: not a name anyone browses to. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

interface HostName { name: string; port?: number }

/** `name`, `name:port`, `[v6]`, `[v6]:port` (or a bare IPv6 address), lower-cased; undefined when it is none of these. */
export function parseHost(text: string): HostName | undefined {
  const s = text.trim().toLowerCase();
  if (isIPv6(s)) return { name: `[${s}]` };
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*)(?::(\d{1,5}))?$/.exec(s);
  if (!m || (m[1]!.startsWith('[') && !isIPv6(m[1]!.slice(1, -1)))) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { name: m[1]!, port };
}

/** The problem with one `engine.console.allowedHosts` entry, or undefined. */
export function allowedHostError(entry: string): string | undefined {
  return parseHost(entry) ? undefined : `'${entry.slice(0, 100)}' is not a host name: a name or address, optionally with :port (console.bank.internal, 10.0.0.5:8080), without scheme or path`;
}

/** Built once per load: whether a request's `Host` and `Origin` are the console's own. */
export class ConsoleHosts {
  /** name -> the ports it is allowed on (undefined: any) */
  private readonly names = new Map<string, Set<number> | undefined>();

  constructor(listenHost: string, allowed: string[]) {
    const entries = [...LOOPBACK_HOSTS, ...(WILDCARDS.has(listenHost.trim()) ? [] : [listenHost]), ...allowed];
    for (const e of entries) {
      const h = parseHost(e);
      if (!h) continue; // refused when the settings were read
      const ports = this.names.get(h.name);
      if (this.names.has(h.name) && ports === undefined) continue;
      if (h.port === undefined) this.names.set(h.name, undefined);
      else this.names.set(h.name, new Set([...(ports ?? []), h.port]));
    }
  }

  /** The `Host` header names an allowed host (at an allowed port). */
  allows(hostHeader: string | undefined): boolean {
    const h = hostHeader === undefined ? undefined : parseHost(hostHeader);
    if (!h || !this.names.has(h.name)) return false;
    const ports = this.names.get(h.name);
    return ports === undefined || (h.port !== undefined && ports.has(h.port));
  }

  /** Why the request is not the console's own (Host, then Origin), or undefined. */
  refusal(hostHeader: string | undefined, origin: string | undefined): string | undefined {
    if (!this.allows(hostHeader)) {
      return `Host '${String(hostHeader ?? '').slice(0, 100)}' is not one of this console's host names (loopback, the listen address, engine.console.allowedHosts)`;
    }
    if (origin === undefined) return undefined;
    let host: string | undefined;
    try {
      const u = new URL(origin);
      if (u.protocol === 'http:' || u.protocol === 'https:') host = u.host;
    } catch { /* refused below */ }
    if (host !== hostHeader!.trim().toLowerCase()) return `Origin '${origin.slice(0, 100)}' is not this console's`;
    return undefined;
  }
}
