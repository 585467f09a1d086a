// A reader of the project's Dockerfile for the tests that check it without a Docker engine:
// stages with their instructions (continuations joined, ARG defaults substituted in FROM), and
// the exec-form JSON of CMD, ENTRYPOINT and HEALTHCHECK, a stage's build arguments and labels.

export interface Instruction {
  op: string;
  args: string;
  line: number;
}
/** `globals`: the ARGs before the first FROM, which a stage's `ARG NAME` (no default) takes up. */
export interface Stage {
  image: string;
  name?: string;
  steps: Instruction[];
  globals: Record<string, string>;
}

export function parseDockerfile(text: string): Stage[] {
  const lines = text.split('\n');
  const instructions: Instruction[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) line = line.slice(0, -1) + ' ' + lines[++i].trim();
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`Dockerfile:${start}: cannot read '${line}'`);
    instructions.push({ op: m[1].toUpperCase(), args: m[2].trim(), line: start });
  }
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.op === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      stages.push({
        image: image.replace(/\$\{(\w+)\}/g, (_, k) => globalArgs[k] ?? ''),
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        steps: [],
        globals: globalArgs,
      });
    } else if (!stages.length) {
      if (ins.op !== 'ARG') throw new Error(`Dockerfile:${ins.line}: ${ins.op} before FROM`);
      const [k, v = ''] = ins.args.split('=');
      globalArgs[k] = v;
    } else stages[stages.length - 1].steps.push(ins);
  }
  return stages;
}

/** `["a", "b"]` (exec form) to its words; shell form is refused: PID 1 must be the program. */
export function execForm(args: string): string[] {
  if (!args.startsWith('[')) throw new Error(`expected the exec form (a JSON array), got: ${args}`);
  return JSON.parse(args) as string[];
}

/** `ENV A=1 B=2` to its pairs (the quoted forms this project uses are not needed). */
export function envPairs(args: string): Record<string, string> {
  return Object.fromEntries(
    args.split(/\s+/).map((p) => {
      const i = p.indexOf('=');
      return [p.slice(0, i), p.slice(i + 1)];
    }),
  );
}

/** `COPY [--from=stage] src... dest`. */
export function copyArgs(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const from = words[0].startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
  const dest = words.pop()!;
  return { from, sources: words, dest };
}

/** `A="x y" B=z` to its pairs (LABEL); double-quoted values are JSON strings. */
function keyValues(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of args.matchAll(/([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g))
    out[m[1]] = m[2].startsWith('"') ? (JSON.parse(m[2]) as string) : m[2];
  return out;
}

/** A stage's build arguments as `docker build --build-arg` would set them: given, else the ARG's default. */
function stageArgs(stage: Stage, given: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of stage.steps.filter((x) => x.op === 'ARG')) {
    const i = s.args.indexOf('=');
    const name = i < 0 ? s.args : s.args.slice(0, i);
    out[name] = given[name] ?? (i < 0 ? (stage.globals[name] ?? '') : s.args.slice(i + 1));
  }
  return out;
}

/** The stage's labels with `${ARG}` expanded from its build arguments. */
export function labels(stage: Stage, given: Record<string, string> = {}): Record<string, string> {
  const args = stageArgs(stage, given);
  const pairs = Object.assign(
    {},
    ...stage.steps.filter((s) => s.op === 'LABEL').map((s) => keyValues(s.args)),
  ) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(pairs).map(([k, v]) => [k, v.replace(/\$\{(\w+)\}/g, (_, a: string) => args[a] ?? '')]),
  );
}
