// The method and path each HTTP route takes on the one listener, checked the way the router
// (find-my-way) matches them, before anything is served: two routes on one path (`/a/{id}` and
// `/a/{name}` are one path to the router, as are `/a` and `/a/`) or a route on a path of the
// engine or an extension (/health/*, /metrics, /mcp, /console) is a diagnostic naming both places,
// where the router would have thrown at start or reload naming no file.

import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Diagnostic } from '../core/diagnostics.ts';

/** How the listener's router matches paths (server.ts builds its routers with these). */
export const ROUTER_MATCHING = { ignoreTrailingSlash: true } as const;

/** A route's path (`{name}` parameters) as the router writes it (`:name`). */
export const routerPath = (path: string): string => path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');

/** The engine's own paths (operations.ts), each with everything under it: no route may take one. */
export const ENGINE_PATHS = ['/health', '/metrics', '/openapi.json'];

/** A path someone other than the routes serves, with everything under it. */
export interface ReservedPath {
  path: string;
  /** who serves it, e.g. `the engine`, `the gateway extension` */
  owner: string;
}

/** A route's method and path, and where its path is written. */
export interface PathClaim {
  route: string;
  method: string;
  path: string;
  at: { file: string; line: number; col: number; path?: string };
}

const noop = () => {};

/** The claims of one load; `claim` says why a claim cannot be served, if it cannot. */
export class RoutePaths {
  private router = FindMyWay(ROUTER_MATCHING);
  private claims: PathClaim[] = [];

  constructor(private reserved: ReservedPath[] = []) {}

  claim(c: PathClaim): Diagnostic | undefined {
    const say = (message: string): Diagnostic => ({ ...c.at, message });
    const bare = c.path.length > 1 ? c.path.replace(/\/+$/, '') : c.path;
    const r = this.reserved.find((x) => bare === x.path || bare.startsWith(x.path + '/'));
    if (r)
      return say(
        `${c.method} ${c.path} ${bare === r.path ? 'is' : 'is under'} ${r.path}, a path of ${r.owner}: ` +
          'routes may not serve it or a path under it',
      );
    try {
      this.router.on(c.method as HTTPMethod, routerPath(c.path), noop, c);
    } catch (e) {
      const other = this.ownerOf(c);
      if (!other) return say(`${c.method} ${c.path}: the router refuses it (${(e as Error).message})`);
      const same = other.path === c.path;
      const where = `${other.at.file}:${other.at.line}:${other.at.col}`;
      return say(
        `${c.method} ${c.path} is already served by route '${other.route}'` +
          (same
            ? ` (${where}); two routes cannot share a method and path`
            : ` as ${other.method} ${other.path} (${where}); to the router they are one path ` +
              '(parameter names and a trailing slash do not count)'),
      );
    }
    this.claims.push(c);
    return undefined;
  }

  /** The earlier claim the router matches `c` to. */
  private ownerOf(c: PathClaim): PathClaim | undefined {
    const p = routerPath(c.path);
    for (const tried of [p, p.replace(/\/+$/, ''), p + '/'].filter((t) => t.startsWith('/'))) {
      const found = this.router.findRoute(c.method as HTTPMethod, tried)?.store as PathClaim | undefined;
      if (found) return found;
    }
    const shape = (x: PathClaim) =>
      `${x.method} ${routerPath(x.path)
        .replace(/:[^/]+/g, ':')
        .replace(/\/+$/, '')}`;
    return this.claims.find((x) => shape(x) === shape(c));
  }
}
