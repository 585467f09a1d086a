// `engine run --stubs <route test file>`: serves the routes with the test file's stubs standing in
// for their vendors, so a connector without a simulator can be tried by hand (and beside the
// simulators `npm start` runs). Each target the file stubs answers its script: the
// file's own `stubs:`, else the first case's that stubs it; the script's answers in order, then
// its last one again. Targets the file does not stub call where they would (a simulator, a
// vendor). The file's `set:` fills in what the environment leaves unset (a vendor's base URL key).

import { resolve } from 'node:path';
import { parseYamlFile } from '../core/yaml-source.ts';
import { DiagnosticError } from '../core/diagnostics.ts';
import { checkTestFile } from '../dsl/route-test-documents.ts';
import type { Answer, TestFile } from '../dsl/route-test-schema.ts';
import type { EngineExtension } from '../engine.ts';
import type { HttpClients } from '../outbound/http-client.ts';
import { StubSet } from './stubs.ts';

export interface RunStubs {
  extension: EngineExtension;
  /** what the file's `set:` gives (the command line's own --set wins) */
  set: Record<string, string>;
  /** target -> the stub's origin, for the start line */
  targets: Record<string, string>;
  close(): Promise<void>;
}

type Redirecting = HttpClients & { redirect?: (target: string, origin: string) => string | undefined };

const list = (a: Answer | Answer[]): Answer[] => (Array.isArray(a) ? a : [a]);

/** Reads and checks the test file (a DiagnosticError names its problems), and starts its stubs. */
export async function runStubs(file: string, root: string): Promise<RunStubs> {
  const src = parseYamlFile(resolve(root, file));
  const problems = checkTestFile(src);
  if (problems.length) throw new DiagnosticError(problems);
  const test = src.value as TestFile;
  const scripts: Record<string, Answer[]> = {};
  for (const [k, v] of Object.entries(test.stubs ?? {})) scripts[k] = list(v);
  for (const c of test.tests) for (const [k, v] of Object.entries(c.stubs ?? {})) scripts[k] ??= list(v);
  // the event hub stub of a test answers 202 to anything: here the environment's event hub takes the events
  delete scripts.eventhub;
  const stubs = await StubSet.start(Object.keys(scripts));
  stubs.reset(scripts);
  const targets = Object.fromEntries(Object.keys(scripts).map((t) => [t, stubs.stubs.get(t)!.origin]));
  const set = Object.fromEntries(Object.entries(test.set ?? {}).map(([k, v]) => [k, String(v)]));
  return {
    set,
    targets,
    extension: {
      name: 'run-stubs',
      async prepare({ services, lintOnly }) {
        if (lintOnly) return;
        (services.http as Redirecting).redirect = (target) => (target in scripts ? targets[target] : undefined);
        services.onClose(() => stubs.close());
      },
    },
    close: () => stubs.close(),
  };
}
