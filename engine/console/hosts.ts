// The host names the console answers to. A page on another site can make a browser send requests
// to the console by pointing its own name at the engine's address (DNS rebinding): the browser
// then sends `Host: evil.example:8080` and an `Origin` to match, and treats the answers as that
// site's. So every console request must name one of the listener's own hosts (loopback, the
// address the engine was told to listen on, `engine.console.allowedHosts`), and an `Origin`, when
// sent, must be that same host (docs/console.md#protection).

import { parseHost } from '../config/host-name.ts';

/** Always allowed: a remote page cannot get a browser to send these names to another machine. */
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
/** Listen addresses that stand for every interface: not a name anyone browses to. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

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
    } catch {
      /* refused below */
    }
    if (host !== hostHeader!.trim().toLowerCase()) return `Origin '${origin.slice(0, 100)}' is not this console's`;
    return undefined;
  }
}
