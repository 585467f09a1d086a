// Runs the shell examples of README.md and docs/**/*.md against a sandbox and checks the answers
// they document. One engine (`node bin/engine.js run routes/ --env sandbox --port <free port>`)
// serves every document; traffic stays on 127.0.0.1.
//
// Conventions (also in README.md, "Documentation is tested"):
// - ```sh, ```bash and ```shell blocks run in bash; ```console blocks are transcripts: `$ cmd`
//   lines are run, the lines under each are its expected output.
// - A block whose first line is `# doc-test: skip (reason)` is not run; the test lists it as
//   skipped with the reason. Use it only for what cannot run here (npm ci/start/test, servers
//   that keep running, commands that write to the project). A server started in the
//   background (`node bin/engine.js run ... --port 0 &`) is stopped by the same document.
// - The blocks of one document run in order in one bash session (variables carry over), in a
//   scratch directory holding links to the project's files and `engine.log`, the test engine's
//   log (never a link to the project's own; doc-scratch.ts). `localhost:8080` and
//   `127.0.0.1:8080` are rewritten to the test engine's port.
// - `# -> <answer>` after commands checks what they printed since the previous check:
//   `201` the HTTP status of the last curl, `exit 1` the exit code of the last command, and/or a
//   JSON subset of the last JSON printed (`# -> 404 {"code":"GC054"}`, `# -> "bankStatus":"CANCELLED"`);
//   the JSON may continue on the next `#` lines.
// - A ```json block right after a run block (at most one line of prose between, ending with ':',
//   e.g. "`201 Created`:", whose status is checked too) is the answer of the block's last command.
//   A ```text block there lists the expected output lines in order.
// - Matching: objects are subsets; an array matches when its items match actual items in order
//   (`[]` only an empty array); `"..."` matches any value, `"PO..."` any string starting "PO";
//   `...` members (`{"a":1,...}`) are ignored; in text lines `...` matches any text.
// Each curl gets --max-time 20; a document gets 60 s in all, after which its shell and every
// process it started (servers in the background too) are killed.
// DOC_TEST_ROUNDS=2 runs every page twice on one sandbox, to prove the examples can be repeated.
// DOC_TEST_FILES=docs/a.md,README.md runs those pages only (while writing one).

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDoc, type DocBlock, type Step } from './doc-blocks.ts';
import { scratchCopy } from './doc-scratch.ts';
import { jsonMismatch, lastJson, linesMismatch } from './doc-match.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC_TIMEOUT_MS = 60_000;
const ROUNDS = Math.max(1, Number(process.env.DOC_TEST_ROUNDS ?? 1));
const MARK = /\n?@@doc-test mark (\d+) (\d+)\n/;

function markdownFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir)).sort()) {
      const p = join(dir, e);
      if (statSync(join(ROOT, p)).isDirectory()) walk(p);
      else if (e.endsWith('.md')) out.push(p);
    }
  };
  walk('docs');
  return out;
}

const ONLY = process.env.DOC_TEST_FILES?.split(',').map((f) => f.trim());
const DOCS = markdownFiles()
  .filter((f) => !ONLY || ONLY.includes(f))
  .map((file) => ({ file, blocks: parseDoc(file, readFileSync(join(ROOT, file), 'utf8')) }));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// `node` is the test's own node, put first on PATH as a program that execs it: `node ... &` then
// gives `$!` the node process itself, so `kill` and `kill -HUP` reach it as in a user's shell
// (neither a shell function nor timeout(1), which forwards only the first signal, would do)
function nodeShim(cwd: string): string {
  const dir = join(cwd, '.doc-test-bin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'node'), `#!/bin/sh\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  return dir;
}

// curl's HTTP status goes to a file of its own: written to the output, it would interleave with
// the body when a pipe (tee) delays that; the body gets a newline, so answers stay one per line
const prelude = (statusFile: string, binDir: string) => `exec 2>&1
curl() { command curl --max-time 20 -w '\\n%{stderr}%{http_code}\\n' "$@" 2>>'${statusFile}'; }
export PATH='${binDir}':"$PATH"
: > '${statusFile}'
`;

interface StepResult {
  step: Step;
  output: string;
  rc: number;
  statuses: number[];
}

/** One bash session per document: every step followed by a mark carrying its exit code. */
async function runDoc(blocks: DocBlock[], port: number, cwd: string): Promise<Map<Step, StepResult>> {
  const steps: Step[] = [];
  const statusFile = join(cwd, '.doc-test-status');
  let script = prelude(statusFile, nodeShim(cwd));
  for (const b of blocks.filter((x) => !x.skip)) {
    for (const s of b.steps) {
      steps.push(s);
      const text = s.script.replace(/(?:localhost|127\.0\.0\.1):8080\b/g, `127.0.0.1:${port}`);
      script += `${text}\n__rc=$?; printf '\\n@@doc-test mark %d %d\\n' "$__rc" ${steps.length - 1}; echo mark >> '${statusFile}'\n`;
    }
  }
  const file = join(cwd, '.doc-test.sh');
  writeFileSync(file, script);
  const child = spawn('bash', ['--noprofile', '--norc', file], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: undefined },
  });
  running.add(child.pid!);
  child.on('close', () => running.delete(child.pid!));
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, DOC_TIMEOUT_MS);
  await new Promise((r) => child.on('close', r));
  clearTimeout(timer);
  const results = new Map<Step, StepResult>();
  const statuses = readFileSync(statusFile, 'utf8')
    .split('mark\n')
    .map((seg) =>
      seg
        .split('\n')
        .filter((l) => /^\d{3}$/.test(l))
        .map(Number),
    );
  const parts = out.split(MARK);
  // parts: text, rc, index, text, rc, index, ...
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const n = Number(parts[i + 2]);
    if (steps[n])
      results.set(steps[n], {
        step: steps[n],
        output: parts[i],
        rc: Number(parts[i + 1]),
        statuses: statuses[n] ?? [],
      });
  }
  return results;
}

function check(r: StepResult | undefined, block: DocBlock): string[] {
  if (!r)
    return [
      `${block.file}:${block.line}: did not run (the document timed out or an earlier command stopped the shell)`,
    ];
  const e = r.step.expect;
  // shell commands must succeed unless the document says otherwise (`# -> exit 1`)
  if (!e)
    return block.lang === 'console' || r.rc === 0
      ? []
      : [`${block.file}:${block.line}: exit ${r.rc}\noutput:\n${r.output.trim().slice(-3000)}`];
  const where = `${block.file}:${e.line}`;
  const problems: string[] = [];
  if (e.exit === undefined && block.lang !== 'console' && r.rc !== 0) problems.push(`${where}: exit ${r.rc}`);
  const statuses = r.statuses;
  const printed = r.output;
  if (e.exit !== undefined && r.rc !== e.exit) problems.push(`${where}: exit ${r.rc}, documented exit ${e.exit}`);
  if (e.status !== undefined && statuses.at(-1) !== e.status)
    problems.push(`${where}: HTTP ${statuses.at(-1) ?? 'none'}, documented ${e.status}`);
  if (e.json !== undefined) {
    const why = jsonMismatch(e.json, lastJson(printed));
    if (why) problems.push(`${where}: ${why}`);
  }
  if (e.lines) {
    const why = linesMismatch(e.lines, printed);
    if (why) problems.push(`${where}: ${why}`);
  }
  return problems.length ? [...problems, `output:\n${printed.trim().slice(-3000)}`] : [];
}

let engine: ChildProcess | undefined;
/**
 * Process groups of the pages' shells still running: a setup that timed out leaves them (and the engines they
 * started) behind
 */
const running = new Set<number>();
let work = '';
const results = new Map<Step, StepResult>();

beforeAll(async () => {
  // a scratch copy of the project made of links: files the examples write stay out of the tree
  work = scratchCopy(ROOT);
  const port = await freePort();
  const log = createWriteStream(join(work, 'engine.log'));
  engine = spawn(process.execPath, ['bin/engine.js', 'run', 'routes/', '--env', 'sandbox', '--port', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'info' },
  });
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    engine!.stdout!.on('data', (d) => {
      log.write(d);
      seen += d;
      if (seen.includes('"engine started"')) resolve();
    });
    engine!.stderr!.on('data', (d) => {
      seen += d;
    });
    engine!.on('exit', (c) => reject(new Error(`engine exited ${c}: ${seen}`)));
  });
  // DOC_TEST_ROUNDS=2 runs every page twice on the same sandbox: examples must work again
  for (let round = 0; round < ROUNDS; round++) {
    for (const d of DOCS) for (const [k, v] of await runDoc(d.blocks, port, work)) results.set(k, v);
  }
  // every page, one after another: 65 s alone on two cores, past 110 s beside the other test files on Node 20
}, 240_000 * ROUNDS);

afterAll(async () => {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  if (engine && engine.exitCode === null) {
    const done = new Promise((r) => engine!.on('exit', r));
    engine.kill('SIGTERM');
    await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
    if (engine.exitCode === null) engine.kill('SIGKILL');
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('documented commands answer as documented', () => {
  for (const d of DOCS.filter((x) => x.blocks.length)) {
    describe(d.file, () => {
      for (const b of d.blocks) {
        const name = `${relative('.', b.file)}:${b.line} (${b.lang})`;
        // a block marked `# doc-test: skip (reason)` is not run: the reason is required and listed
        const reason = b.skip;
        if (reason) {
          it(`${name} is marked not runnable here: ${reason}`, () => {
            expect(reason.trim().length, 'a skipped block must say why').toBeGreaterThan(3);
          });
          continue;
        }
        it(name, () => {
          const problems = b.steps.flatMap((s) => check(results.get(s), b));
          expect(problems.join('\n')).toBe('');
        });
      }
    });
  }
});
