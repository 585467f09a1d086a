// `engine test`: finds route test files, starts one engine per file (per distinct environment and
// --set within it) on an ephemeral 127.0.0.1 port with stub vendors behind the HttpClients
// redirect, runs the cases in order and reports each with the file:line of what failed.

import { dirname, relative, resolve } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { startEngine, type EngineExtension, type RunningEngine, type Simulation } from '../engine.ts';
import { findYamlFiles } from '../dsl/route-loader.ts';
import { DiagnosticError, formatDiagnostic } from '../core/diagnostics.ts';
import { parseYamlFile, locate, type YamlSource } from '../core/yaml-source.ts';
import type { HttpClients } from '../outbound/http-client.ts';
import { createLogger } from '../observability/logger.ts';
import type { ValuesSet } from '../config/values.ts';
import { SIMULATOR_PREFIX } from '../config/env-keys.ts';
import { checkTestFile, isTestFile } from '../dsl/route-test-documents.ts';
import { StubSet } from './stubs.ts';
import { runInput, InputError } from './case-input.ts';
import { checkExpectations, type Failure } from './expectations.ts';
import { unknownTargets, type NameProblem } from '../dsl/route-test-names.ts';
import type { Coverage } from '../pipeline/coverage.ts';
import type { Answer, Scalar, TestCase, TestFile } from '../dsl/route-test-schema.ts';

export interface RunOptions {
  /** test files or folders to search (default: routes) */
  paths: string[];
  root?: string;
  valuesDir?: string;
  secretsDir?: string;
  /** only cases whose "file name" contains this text (or matches /regex/) */
  filter?: string;
  /** extensions every engine gets (the gateway) */
  extensions?: EngineExtension[];
  /**
   * The extension that simulates an environment (EngineExtension.simulation): started for files
   * with `simulators: true`; its environment is the default one, its stand-ins say what replaces
   * its simulators otherwise
   */
  simulators?: EngineExtension;
  /** called as each case finishes */
  onResult?: (r: CaseResult) => void;
  /** counts the steps, branches and handlers the cases reach (`--coverage`) */
  coverage?: Coverage;
}

export interface ReportedFailure {
  file: string;
  line: number;
  col: number;
  message: string;
  diff: string[];
}

export interface CaseResult {
  file: string;
  line: number;
  name: string;
  ok: boolean;
  ms: number;
  failures: ReportedFailure[];
}

type RedirectingClients = HttpClients & { redirect?: (target: string, origin: string) => string | undefined };

/** `simulator:NAME` references of the environment and values files: what the stubs stand in for. */
function simulatorNames(values: ValuesSet): Set<string> {
  const names = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string' && v.startsWith(SIMULATOR_PREFIX))
      names.add(v.slice(SIMULATOR_PREFIX.length).split('/')[0]);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) visit(x);
  };
  visit(values.environment.keys);
  visit(values.environment.properties);
  for (const f of values.files.values()) for (const p of f.props.values()) visit(p.value);
  return names;
}

/** A port nothing listens on: message sources (AMQP) fail to connect at once and stay quiet. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

/**
 * Points the simulators' references at the stubs: the event hub simulator at the event hub stub
 * (also when the simulators run), AMQP ones at a closed port, any other at the catch-all.
 */
function stubsExtension(
  stubs: StubSet,
  simulators: boolean,
  simulation: Simulation | undefined,
  coverage: Coverage | undefined,
): EngineExtension {
  const standIns = Object.entries(simulation?.standIns ?? {});
  return {
    name: 'route-test-stubs',
    async prepare({ values, services, lintOnly }) {
      if (lintOnly) return;
      (services.http as RedirectingClients).redirect = stubs.redirect(simulators);
      // before the routes compile: they count what runs only when coverage was asked for
      if (coverage) services.coverage = coverage;
      const eventHubs = standIns.filter(([, s]) => s === 'event-hub').map(([n]) => [n, stubs.eventhub.origin]);
      if (simulators) return { simulatorUrls: Object.fromEntries(eventHubs) };
      const urls: Record<string, string> = {};
      const amqp = `amqp://127.0.0.1:${await closedPort()}`;
      const by = new Map(standIns);
      for (const n of simulatorNames(values)) {
        urls[n] =
          by.get(n) === 'event-hub' ? stubs.eventhub.origin : by.get(n) === 'amqp' ? amqp : stubs.fallbackOrigin;
      }
      return { simulatorUrls: urls };
    },
  };
}

const list = (a: Answer | Answer[] | undefined): Answer[] | undefined =>
  a === undefined ? undefined : Array.isArray(a) ? a : [a];

function targetsOf(file: TestFile, cases: TestCase[]): Set<string> {
  const t = new Set(Object.keys(file.stubs ?? {}));
  for (const c of cases) {
    for (const k of Object.keys(c.stubs ?? {})) t.add(k);
    for (const k of Object.keys(c.expect.calls ?? {})) t.add(k);
  }
  return t;
}

function matcher(filter: string | undefined): (name: string) => boolean {
  if (!filter) return () => true;
  const re = /^\/(.+)\/([a-z]*)$/.exec(filter);
  if (re) {
    const r = new RegExp(re[1], re[2]);
    return (n) => r.test(n);
  }
  const f = filter.toLowerCase();
  return (n) => n.toLowerCase().includes(f);
}

/** Captured log lines (JSON text), for logs-absent. */
class LogSink extends Writable {
  lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.lines.push(chunk.toString('utf8'));
    done();
  }
}

interface Group {
  key: string;
  environment?: string;
  set: Record<string, string>;
  cases: [number, TestCase][];
}

/** `fallback`: the simulated environment, where a case runs unless it names another */
function groups(file: TestFile, cases: [number, TestCase][], fallback: string | undefined): Group[] {
  const out = new Map<string, Group>();
  for (const [i, c] of cases) {
    const environment = c.environment ?? file.environment ?? fallback;
    const set: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...file.set, ...c.set } as Record<string, Scalar>)) set[k] = String(v);
    const key = JSON.stringify([environment, set]);
    let g = out.get(key);
    if (!g) out.set(key, (g = { key, environment, set, cases: [] }));
    g.cases.push([i, c]);
  }
  return [...out.values()];
}

export function findTestFiles(paths: string[]): string[] {
  return findYamlFiles(paths).filter(isTestFile);
}

async function runGroup(
  src: YamlSource,
  file: TestFile,
  g: Group,
  opts: RunOptions,
  report: (r: CaseResult) => void,
): Promise<void> {
  const root = resolve(opts.root ?? process.cwd());
  const where = (path: (string | number)[]) => ({ file: src.file, ...locate(src, path) });
  const logs = new LogSink();
  const wantsLogs = g.cases.some(([, c]) => c.expect['logs-absent']?.length);
  const stubs = await StubSet.start(
    targetsOf(
      file,
      g.cases.map(([, c]) => c),
    ),
  );
  const simulators = !!file.simulators && !!opts.simulators;
  const stubbing = stubsExtension(stubs, simulators, opts.simulators?.simulation, opts.coverage);
  const extensions = [...(simulators ? [opts.simulators!] : []), stubbing, ...(opts.extensions ?? [])];
  // the route files only: another test file's problems are reported with that file, they do not
  // stop this one's engine
  const routes = findYamlFiles(
    (file.routes ?? [dirname(dirname(resolve(root, src.file)))]).map((p) => resolve(root, p)),
  )
    .filter((f) => !isTestFile(f))
    .map((f) => relative(root, f));
  let engine: RunningEngine;
  try {
    engine = await startEngine({
      routes,
      root,
      valuesDir: opts.valuesDir,
      secretsDir: opts.secretsDir,
      env: g.environment,
      set: g.set,
      port: 0,
      host: '127.0.0.1',
      simulated: simulators,
      processEnv: {},
      shutdownTimeoutMs: 1000,
      // a case's event hub stub expects the event during the case: publish directly
      outbox: false,
      extensions,
      logger: createLogger(wantsLogs ? 'debug' : 'silent', logs),
    });
  } catch (e) {
    await stubs.close();
    const lines = e instanceof DiagnosticError ? e.diagnostics.map(formatDiagnostic) : [(e as Error).message];
    for (const [i, c] of g.cases) {
      const w = where(['tests', i]);
      report({
        file: src.file,
        line: w.line,
        name: c.name,
        ok: false,
        ms: 0,
        failures: [{ ...w, message: 'the engine did not start', diff: lines.map((l) => `  ${l}`) }],
      });
    }
    return;
  }
  // a stub or `calls` under a name no step calls: the real target would go unstubbed
  const names = unknownTargets(file, g.cases, engine.services.http.targets);
  const named = (p: NameProblem) => ({ file: src.file, ...locate(src, p.path, true), message: p.message, diff: [] });
  try {
    for (const [i, c] of g.cases) {
      const wrong = [...names.file, ...(names.cases.get(i) ?? [])];
      if (wrong.length) {
        report({
          file: src.file,
          line: where(['tests', i]).line,
          name: c.name,
          ok: false,
          ms: 0,
          failures: wrong.map(named),
        });
        continue;
      }
      const started = performance.now();
      const scripts: Record<string, Answer[]> = {};
      for (const [k, v] of Object.entries({ ...file.stubs, ...c.stubs })) scripts[k] = list(v)!;
      stubs.reset(scripts);
      // each case starts with every client's breaker closed and budget full: a vendor fault
      // stubbed in one case must not refuse the calls of the next
      engine.services.http.guards.reset();
      logs.lines.length = 0;
      let failures: Failure[];
      try {
        const answer = await runInput(engine, c);
        failures = await checkExpectations(c.expect, { answer, stubs, logs: logs.lines });
      } catch (e) {
        failures = [
          {
            path: [],
            message: e instanceof InputError ? e.message : `the case failed to run: ${(e as Error).message}`,
            diff: [],
          },
        ];
      }
      const base = ['tests', i];
      report({
        file: src.file,
        line: where(base).line,
        name: c.name,
        ok: !failures.length,
        ms: performance.now() - started,
        failures: failures.map((f) => ({
          ...where(f.path.length ? [...base, 'expect', ...f.path] : base),
          message: f.message,
          diff: f.diff,
        })),
      });
    }
  } finally {
    await engine.close();
    await stubs.close();
  }
}

/** Runs every test file under `paths`; results in file order. */
export async function runRouteTests(opts: RunOptions): Promise<CaseResult[]> {
  const root = resolve(opts.root ?? process.cwd());
  const results: CaseResult[] = [];
  const report = (r: CaseResult) => {
    results.push(r);
    opts.onResult?.(r);
  };
  const wanted = matcher(opts.filter);
  for (const abs of findTestFiles(opts.paths.map((p) => resolve(root, p)))) {
    const rel = relative(process.cwd(), abs) || abs;
    let src: YamlSource;
    try {
      src = parseYamlFile(rel);
    } catch (e) {
      if (!(e instanceof DiagnosticError)) throw e;
      for (const d of e.diagnostics)
        report({ file: rel, line: d.line, name: '(file)', ok: false, ms: 0, failures: [{ ...d, diff: [] }] });
      continue;
    }
    const diags = checkTestFile(src);
    if (diags.length) {
      report({
        file: rel,
        line: diags[0].line,
        name: '(file)',
        ok: false,
        ms: 0,
        failures: diags.map((d) => ({ file: d.file, line: d.line, col: d.col, message: d.message, diff: [] })),
      });
      continue;
    }
    const file = src.value as TestFile;
    const cases = file.tests
      .map((c, i) => [i, c] as [number, TestCase])
      .filter(([, c]) => wanted(c.name) || wanted(`${rel} ${c.name}`));
    const simulated = opts.simulators?.simulation?.environment;
    for (const g of groups(file, cases, simulated)) await runGroup(src, file, g, opts, report);
  }
  return results;
}
