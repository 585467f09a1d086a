// `engine errors`: the platform codes of the error catalog; with --docs, the generated table of
// docs/errors.md, whose connectors column comes from the routes' error mappings (loaded as lint does).

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { codesByConnector, renderErrorTable, updateErrorsDoc } from '../dsl/error-reference.ts';
import { CATALOG_ENTRIES, ERROR_CATALOG, type PlatformCode } from '../core/error-catalog.ts';
import { createLogger } from '../observability/logger.ts';
import { loadForListing, type EngineExtension } from '../engine.ts';

/** The generated table of docs/errors.md for the routes under `dirs` of the project at `root`. */
export async function errorTable(
  dirs: string[],
  root = process.cwd(),
  extensions: EngineExtension[] = [],
): Promise<string> {
  const abs = dirs.map((d) => resolve(root, d));
  // loaded as `engine routes` loads them (lint mode, simulator references to stand-ins); what
  // failed to load maps nothing: `engine lint` says why
  const { routes } = await loadForListing({ routes: abs, root, logger: createLogger('silent'), extensions });
  return renderErrorTable(codesByConnector(routes, abs));
}

export function registerErrorsCommand(program: Command, extensions: EngineExtension[]): void {
  program
    .command('errors')
    .argument('[dirs...]', 'route files or directories (the connectors of --markdown and --docs)', ['routes'])
    .description('list the platform error codes: code, status, title (the catalog; docs/errors.md)')
    .option('--markdown', "print docs/errors.md's generated table: meaning, what to do, who answers each code")
    .option('--docs <file>', 'write that table into the generated part of this document (e.g. docs/errors.md)')
    .action(async (dirs: string[], o: { markdown?: boolean; docs?: string }) => {
      if (!o.markdown && !o.docs) {
        for (const code of Object.keys(ERROR_CATALOG) as PlatformCode[]) {
          const e = CATALOG_ENTRIES[code];
          process.stdout.write(`${code}  ${e.statuses.join(',').padEnd(11)}  ${e.title}\n`);
        }
        return;
      }
      const table = await errorTable(dirs.length ? dirs : ['routes'], process.cwd(), extensions);
      if (o.markdown) process.stdout.write(table + '\n');
      if (o.docs) {
        const doc = existsSync(o.docs) ? readFileSync(o.docs, 'utf8') : '# Error codes\n';
        writeFileSync(o.docs, updateErrorsDoc(doc, table));
        process.stdout.write(`wrote ${o.docs}\n`);
      }
    });
}
