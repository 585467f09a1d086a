// A reader of the project's Dockerfile for the tests that check it without a Docker engine:
// stages with their instructions (continuations joined, ARG defaults substituted in FROM), and
// the exec-form JSON of CMD, ENTRYPOINT and HEALTHCHECK.

export interface Instruction { op: string; args: string; line: number }
export interface Stage { image: string; name?: string; steps: Instruction[] }

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
      stages.push({ image: image.replace(/\$\{(\w+)\}/g, (_, k) => globalArgs[k] ?? ''), name: as?.toUpperCase() === 'AS' ? name : undefined, steps: [] });
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
  return Object.fromEntries(args.split(/\s+/).map((p) => { const i = p.indexOf('='); return [p.slice(0, i), p.slice(i + 1)]; }));
}

/** `COPY [--from=stage] src... dest`. */
export function copyArgs(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const from = words[0].startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
  const dest = words.pop()!;
  return { from, sources: words, dest };
}
