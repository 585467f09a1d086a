// `engine routes --explain ID`: what one route takes from elsewhere, so that a reader need not
// walk the folders: its values file and where it came from (the route or its connector
// document), each client profile its steps name as it is after `extends` (secrets masked), and
// the on-exception handlers it runs (its own or its folder's).

import { stringify } from 'yaml';
import { routeGraph } from '../console/route-graph.ts';
import { isError } from '../core/diagnostics.ts';
import { compileSecrets, isSecretHeader, maskDeep, maskSecret, valuesSecrets } from '../observability/mask.ts';
import type { EngineOptions } from '../engine.ts';
import { loadForListing } from './routes-table.ts';

/** The explanation of route `id`; `ok` false when no such route is loaded. */
export function explainRoute(opts: EngineOptions, id: string): { ok: boolean; text: string } {
  const { routes, diagnostics, clients, values } = loadForListing(opts);
  const route = routes.find((r) => r.id === id);
  if (!route) {
    const ids = routes.map((r) => r.id).sort().join(', ');
    const why = diagnostics.some(isError) ? '; `engine lint` says why a route did not load' : '';
    return { ok: false, text: `no route '${id}' is loaded (routes: ${ids || 'none'})${why}\n` };
  }
  const out: string[] = [`route ${route.id} (${route.file})`];
  out.push(route.valuesName
    ? `values: ${route.valuesName} (${route.valuesFrom ? `from the connector document ${route.valuesFrom}` : 'named by the route'})`
    : 'values: none');
  const secrets = compileSecrets(valuesSecrets(values));
  for (const name of route.clients ?? []) {
    const p = clients.profileOf(route.file, name);
    if (!p) { out.push(`client ${name}: not found`); continue; }
    out.push(`client ${name} (${p.file}), after extends:`);
    out.push(indent(stringify(masked(p.settings, secrets))));
  }
  const handlers = routeGraph(route.file, undefined, route.handlersFrom, route.instance)?.onException ?? [];
  out.push(handlers.length === 0
    ? 'on-exception: none'
    : `on-exception (${route.handlersFrom ? `from the connector document ${route.handlersFrom}` : "the route's own"}):`);
  for (const h of handlers) out.push(`  - when ${h.label}${h.template ? ` -> ${h.template}` : ''}${h.steps.length ? ` (${h.steps.length} step(s))` : ''}`);
  return { ok: true, text: out.join('\n') + '\n' };
}

/**
 * A profile's settings as shown: literal headers and credential headers masked, configured secrets masked
 * wherever they stand.
 */
function masked(settings: Record<string, unknown>, secrets: ReturnType<typeof compileSecrets>): unknown {
  const s = { ...settings } as Record<string, unknown>;
  const headers = (v: unknown, all: boolean) => Object.fromEntries(Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => [k, all || isSecretHeader(k) ? maskSecret(x) : x]));
  if (s['static-headers']) s['static-headers'] = headers(s['static-headers'], true);
  if (s.headers) s.headers = headers(s.headers, false);
  return maskDeep(s, secrets, Infinity);
}

const indent = (text: string) => text.trimEnd().split('\n').map((l) => '    ' + l).join('\n');
