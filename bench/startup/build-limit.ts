// The hand-written limit as JavaScript, for the start-up benchmark: a TypeScript entry and every
// module it imports by a relative path, transpiled (types stripped, `.ts` imports rewritten to
// `.js`) into dist/bench-limit/ with the same layout, so that packages resolve as from the sources.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '../..');
const out = join(root, 'dist/bench-limit');

/** Transpiles `entry` (a path from the project root) and its relative imports; returns the JavaScript entry. */
export function buildLimit(entry: string): string {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, 'utf8');
    const js = ts.transpileModule(src, {
      fileName: file,
      compilerOptions: {
        target: ts.ScriptTarget.ES2023,
        module: ts.ModuleKind.ESNext,
        rewriteRelativeImportExtensions: true,
        verbatimModuleSyntax: false,
      },
    }).outputText;
    const target = join(out, relative(root, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
    for (const m of src.matchAll(/^(?:import|export)\s(?!type\s)[^'"]*?from\s+'(\.[^']+\.ts)'/gm))
      visit(resolve(dirname(file), m[1]));
  };
  visit(resolve(root, entry));
  return join(out, entry.replace(/\.ts$/, '.js'));
}
