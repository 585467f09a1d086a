// What the console shows of the client profiles' guards (outbound/client-guard.ts): every client
// with its breaker, bulkhead and retry budget for the Clients page, and per route the breaker
// state of each client it calls, for the Routes page's badges.

import type { BreakerState } from '../outbound/circuit-breaker.ts';
import type { ClientGuards, GuardView } from '../outbound/client-guard.ts';

/** A client of one route as its badge shows it; no `state` when the client has no breaker. */
export interface RouteClient {
  client: string;
  state?: BreakerState;
  since?: string;
  lastCause?: string;
}

export const clientViews = (guards: ClientGuards): GuardView[] =>
  guards.list().sort((a, b) => a.client.localeCompare(b.client));

export function routeClients(guards: ClientGuards, routeId: string): RouteClient[] {
  return guards
    .ofRoute(routeId)
    .map((g) => {
      const b = g.view([]).breaker;
      return b
        ? { client: g.label, state: b.state, since: b.since, ...(b.lastCause ? { lastCause: b.lastCause } : {}) }
        : { client: g.label };
    })
    .sort((a, b) => a.client.localeCompare(b.client));
}
