// `npm run bench:all`: every benchmark in sequence, each by its npm script name, each load bounded
// (15 s at most). The start-up benchmark measures the build, so the build runs first. A script
// that does not exist (yet) is named and skipped; a benchmark that fails is named and the rest
// still run; the exit code says whether all of them ran.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const SEQUENCE = [
  'bench:fx',
  'bench:payments',
  'bench:gateway',
  'bench:payment-inbound',
  'bench:batch',
  'bench:screening',
  'bench:outbox',
  'bench:resilience',
  'bench:startup',
];
const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const env = { ...process.env, SECONDS: process.env.SECONDS ?? '10' };
const outcome: string[] = [];
for (const name of SEQUENCE) {
  if (!scripts[name]) {
    outcome.push(`${name}: no such script yet, skipped`);
    console.log(`\n== ${name}: no such script yet, skipped`);
    continue;
  }
  if (name === 'bench:startup' && spawnSync(npm, ['run', 'build'], { stdio: 'inherit' }).status !== 0) {
    outcome.push(`${name}: the build failed`);
    continue;
  }
  console.log(`\n== npm run ${name}`);
  const t0 = Date.now();
  const r = spawnSync(npm, ['run', name], { stdio: 'inherit', env });
  outcome.push(
    `${name}: ${r.status === 0 ? 'done' : `failed (exit ${r.status ?? r.signal})`} in ${Math.round((Date.now() - t0) / 1000)} s`,
  );
}
console.log(`\n${outcome.join('\n')}`);
process.exitCode = outcome.every((o) => / done /.test(o) || /skipped$/.test(o)) ? 0 : 1;
