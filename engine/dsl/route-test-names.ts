// Route test stubs and `calls` name to-http targets. A name no loaded step calls is a typo: its
// stub answers nobody while the real target goes unstubbed, and `calls: { typo: 0 }` passes
// whatever the route does. Each such name is an error at its line, suggesting the nearest target:
// `engine test` fails the cases, `engine lint` reports it (route-test-documents.ts).

import { didYouMean } from '../core/diagnostics.ts';
import type { YamlPath } from '../core/yaml-source.ts';
import type { TestCase, TestFile } from './route-test-schema.ts';

export interface NameProblem {
  /** YAML path of the name in the test file */
  path: YamlPath;
  message: string;
}

/** The event hub's stub: always there, whatever the routes call. */
const EVENTHUB = 'eventhub';

function problem(what: string, name: string, targets: Set<string>, path: YamlPath): NameProblem {
  const known = [...targets].sort();
  const s = didYouMean(name, [...known, EVENTHUB]);
  const hint = s
    ? `; did you mean '${s}'?`
    : known.length
      ? `; the targets are ${known.join(', ')} (and ${EVENTHUB})`
      : `; the routes under test call no to-http target (${EVENTHUB} scripts the event hub)`;
  return { path, message: `${what} '${name}' names no to-http target of the routes under test${hint}` };
}

/** The names of a file's stubs (`file`: the file-level ones) and of each case's stubs and calls that no step calls. */
export function unknownTargets(
  file: TestFile,
  cases: [number, TestCase][],
  targets: Set<string>,
): { file: NameProblem[]; cases: Map<number, NameProblem[]> } {
  const unknown = (n: string) => n !== EVENTHUB && !targets.has(n);
  const out = {
    file: Object.keys(file.stubs ?? {})
      .filter(unknown)
      .map((n) => problem('stub', n, targets, ['stubs', n])),
    cases: new Map<number, NameProblem[]>(),
  };
  for (const [i, c] of cases) {
    const found = [
      ...Object.keys(c.stubs ?? {})
        .filter(unknown)
        .map((n) => problem('stub', n, targets, ['tests', i, 'stubs', n])),
      ...Object.keys(c.expect.calls ?? {})
        .filter(unknown)
        .map((n) => problem('calls', n, targets, ['tests', i, 'expect', 'calls', n])),
    ];
    if (found.length) out.cases.set(i, found);
  }
  return out;
}
