// Connectors per environment: an environment file's `connectors:` names the route folders it runs
// (routes/<name>/), and only those load, in a run, a reload, lint and `engine routes` alike, so
// they agree. A route directory given on the command line that holds no route of its own, only
// connector documents (routes/ with its client templates), is a set of connectors: its folders
// not listed are left out. A folder given that holds routes is one connector, named on purpose:
// not listed, it still loads (never a silent empty start), with a warning that the list leaves it
// out, so that `engine run routes/` would not run it.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { diagAt } from '../core/yaml-source.ts';
import { suggestion, type Diagnostic } from '../core/diagnostics.ts';
import type { EnvironmentFile } from '../config/values.ts';
import { connectorFilesIn } from './connector-file.ts';

const YAML = /\.ya?ml$/;

/** A folder whose YAML files are only connector documents, with folders inside: the connectors' parent. */
export function isConnectorSet(dir: string): boolean {
  const entries = readdirSync(dir, { withFileTypes: true });
  const documents = new Set(connectorFilesIn(dir).map((f) => basename(f)));
  return (
    entries.some((e) => e.isDirectory()) &&
    entries.every((e) => e.isDirectory() || !YAML.test(e.name) || documents.has(e.name))
  );
}

/** The route folders of a set of connectors (`routes/`), by name. */
export function connectorFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** The route paths to load for this environment (absolute, as given), and what is wrong with its list. */
export function selectConnectors(
  paths: string[],
  environment: EnvironmentFile,
): { paths: string[]; diagnostics: Diagnostic[] } {
  const names = environment.connectors;
  if (!names) return { paths, diagnostics: [] };
  const diagnostics: Diagnostic[] = [];
  const out: string[] = [];
  const available = new Set<string>();
  let sets = 0;
  const where = environment.file ? relative(process.cwd(), environment.file) : `environment '${environment.name}'`;
  for (const p of paths) {
    if (!existsSync(p) || !statSync(p).isDirectory()) {
      out.push(p);
      continue;
    }
    if (isConnectorSet(p)) {
      sets++;
      // its connector documents (the client templates) are read by the routes of the folders
      // below, as those of a folder given alone are; named here, the templates the connectors
      // left out extend would each be warned of as unused
      for (const e of readdirSync(p, { withFileTypes: true })) {
        if (!e.isDirectory()) continue;
        available.add(e.name);
        if (names.includes(e.name)) out.push(join(p, e.name));
      }
      continue;
    }
    const name = basename(p);
    available.add(name);
    out.push(p);
    if (!names.includes(name))
      diagnostics.push({
        file: relative(process.cwd(), p) || p,
        line: 1,
        col: 1,
        severity: 'warning',
        message: `connector '${name}' is not one environment '${environment.name}' runs (connectors: in ${where}: ${names.join(', ') || 'none'}): loaded because it was named; add it there for a run of the whole route folder`,
      });
  }
  // a name no folder has would run nothing: a typo (checked when a set of connectors was given)
  if (sets && environment.source)
    names.forEach((n, i) => {
      if (!available.has(n))
        diagnostics.push(
          diagAt(
            environment.source!,
            ['connectors', i],
            `there is no connector folder '${n}'${suggestion(n, [...available]) || `; connectors: ${[...available].sort().join(', ')}`}`,
          ),
        );
    });
  return { paths: out, diagnostics };
}
