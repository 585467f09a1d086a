// `engine routes --explain ID`: prints what one route takes from elsewhere, so that a reader need
// not walk the folders (the facts: dsl/route-inheritance.ts, which the console's route page shows
// too): its connector id and values file and where they came from, each client profile its
// steps name as it is after `extends` (secrets masked) with where each setting was written and
// the values line behind each placeholder (the retry count, say), and its on-exception handlers.

import { stringify } from 'yaml';
import { resolve } from 'node:path';
import { isError } from '../core/diagnostics.ts';
import { routeInheritance, type RouteInheritance } from '../dsl/route-inheritance.ts';
import { loadForListing, type EngineOptions } from '../engine.ts';

/** The explanation of route `id`; `ok` false when no such route is loaded. */
export async function explainRoute(opts: EngineOptions, id: string): Promise<{ ok: boolean; text: string }> {
  const { routes, diagnostics, values } = await loadForListing(opts);
  const route = routes.find((r) => r.id === id);
  if (!route) {
    const ids = routes
      .map((r) => r.id)
      .sort()
      .join(', ');
    const why = diagnostics.some(isError) ? '; `engine lint` says why a route did not load' : '';
    return { ok: false, text: `no route '${id}' is loaded (routes: ${ids || 'none'})${why}\n` };
  }
  // files named as the rest of the CLI names them: relative to the working directory
  return { ok: true, text: explainText(routeInheritance(route, values, resolve('.'))) };
}

function explainText(r: RouteInheritance): string {
  const out: string[] = [`route ${r.id} (${r.file})`];
  const c = r.connector;
  out.push(
    !c
      ? 'connector: none'
      : `connector: ${c.id} (${c.from ? `from the connector document ${c.from}` : c.property ? `values property ${c.property}` : 'named by the route'})`,
  );
  out.push(
    r.values
      ? `values: ${r.values.name} (${r.values.from ? `from the connector document ${r.values.from}` : 'named by the route'})`
      : 'values: none',
  );
  for (const p of r.clients) {
    if (!p.file) {
      out.push(`client ${p.name}: not found`);
      continue;
    }
    out.push(`client ${p.name} (${p.file}), after extends:`);
    if (p.extends.length)
      out.push(`  extends ${p.extends.map((e) => `${e.name} (${e.file})`).join(', which extends ')}`);
    out.push(indent(stringify(p.settings), '    '));
    out.push('  where each setting is written:');
    for (const s of p.sources) {
      const props = s.properties
        .map((x) => `{{${x.key}}} = ${x.at}${x.origin === 'values' || x.origin === 'none' ? '' : ` (${x.origin})`}`)
        .join(', ');
      out.push(`    ${s.setting}: ${s.at}${props ? ` <- ${props}` : ''}`);
    }
  }
  const h = r.onException;
  out.push(
    h.handlers.length === 0
      ? 'on-exception: none'
      : `on-exception (${h.from ? `from the connector document ${h.from}` : "the route's own"}):`,
  );
  for (const x of h.handlers)
    out.push(`  - when ${x.when}${x.template ? ` -> ${x.template}` : ''}${x.steps ? ` (${x.steps} step(s))` : ''}`);
  return out.join('\n') + '\n';
}

const indent = (text: string, by: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => by + l)
    .join('\n');
