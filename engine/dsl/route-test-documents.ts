// Route test files live in the route folders; this document handler makes the route loader
// check them (lint: file:line:col with did-you-mean) instead of compiling them as routes.

import type { DocumentHandler } from './route-loader.ts';
import { isError, type Diagnostic } from '../core/diagnostics.ts';
import { checkConfig } from '../schemas/config-check.ts';
import { diagAt, type YamlSource } from '../core/yaml-source.ts';
import { compileExpression } from '../expressions/expressions.ts';
import { ROUTE_TEST_SCHEMA, INPUT_KINDS, type TestFile } from './route-test-schema.ts';
import { unknownTargets } from './route-test-names.ts';

/** Structure and meaning of one parsed test file; empty when it can run. */
export function checkTestFile(src: YamlSource): Diagnostic[] {
  const d = checkConfig(src.value, ROUTE_TEST_SCHEMA, src, [], 'route test file');
  if (d.length) return d;
  const file = src.value as TestFile;
  const names = new Map<string, number>();
  file.tests.forEach((c, i) => {
    const inputs = INPUT_KINDS.filter((k) => c[k] !== undefined);
    if (inputs.length !== 1) {
      d.push(
        diagAt(
          src,
          ['tests', i],
          `test '${c.name}' needs exactly one input: ${INPUT_KINDS.join(', ')}${inputs.length ? ` (has ${inputs.join(' and ')})` : ''}`,
        ),
      );
    }
    if (names.has(c.name))
      d.push(
        diagAt(src, ['tests', i, 'name'], `duplicate test name '${c.name}' (also test ${names.get(c.name)! + 1})`),
      );
    names.set(c.name, i);
    (c.expect.assert ?? []).forEach((a, j) => {
      try {
        compileExpression(a, []);
      } catch (e) {
        d.push(diagAt(src, ['tests', i, 'expect', 'assert', j], `assert: ${(e as Error).message}`));
      }
    });
    if (c.expect.outcome && !c.message)
      d.push(
        diagAt(
          src,
          ['tests', i, 'expect', 'outcome'],
          'outcome is how a message settles: the case needs a `message` input',
        ),
      );
    if (c.request?.sign && !c.request.sign.key === !c.request.sign.secret)
      d.push(diagAt(src, ['tests', i, 'request', 'sign'], 'sign needs one of key (an environmental key) or secret'));
  });
  return d;
}

/**
 * The `tests:` document kind, for the route loader: checked by lint, left unread by a run. Once the
 * routes are loaded, a stub or `calls` name that no loaded to-http step calls is an error at its
 * line (`targets`: the names the loaded steps call), as `engine test` fails it; not said while the
 * routes have errors (a route that did not compile calls nothing).
 */
export function routeTestDocuments(targets: () => ReadonlySet<string>): DocumentHandler {
  const checked: YamlSource[] = [];
  return {
    key: 'tests',
    lintOnlyFiles: isTestFile,
    load: (src) => {
      const d = checkTestFile(src);
      if (!d.length) checked.push(src);
      return d;
    },
    finish: (_routes, diagnostics) => {
      const files = checked.splice(0);
      // a route that did not compile named no targets: its stubs would each be a false error
      if (diagnostics.some(isError)) return [];
      const known = new Set(targets());
      return files.flatMap((src) => {
        const file = src.value as TestFile;
        const names = unknownTargets(file, [...file.tests.entries()], known);
        return [...names.file, ...[...names.cases.values()].flat()].map((p) => diagAt(src, p.path, p.message, true));
      });
    },
  };
}

/** A route test file, by the convention `<folder>/tests/<name>.yaml`. */
export function isTestFile(f: string): boolean {
  return /(^|[\\/])tests[\\/][^\\/]+\.ya?ml$/.test(f);
}
