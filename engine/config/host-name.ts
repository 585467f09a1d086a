// A host name as a `Host` header or a setting gives it (`name`, `name:port`, `[v6]:port`): read by
// the engine settings (engine.console.allowedHosts is checked at lint) and by the console's host
// check (console/hosts.ts), so it lives with the settings, below both.

import { isIPv6 } from 'node:net';

export interface HostName {
  name: string;
  port?: number;
}

/**
 * `name`, `name:port`, `[v6]`, `[v6]:port` (or a bare IPv6 address), lower-cased; undefined when it is none
 * of these.
 */
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
  return parseHost(entry)
    ? undefined
    : `'${entry.slice(0, 100)}' is not a host name: a name or address, optionally with :port (console.bank.internal, 10.0.0.5:8080), without scheme or path`;
}
