// Core pinning for the strict benchmarks: the target alone on one core, the load generator and the
// vendor stand-in on the other, so that neither the engine's extra work nor the generator's spills
// onto the other's core (the unpinned harness measured the limit slower than it is that way).
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';

export const TARGET_CORE = 0;
export const LOAD_CORE = 1;

/** Why pinning is impossible here, or undefined when it works (Linux, taskset, at least 2 cores). */
function whyNot(): string | undefined {
  if (process.platform !== 'linux') return `${process.platform} has no taskset`;
  if (cpus().length < 2) return `only ${cpus().length} core`;
  const t = spawnSync('taskset', ['-cp', String(LOAD_CORE), String(process.pid)], { encoding: 'utf8' });
  if (t.error || t.status !== 0) return `taskset failed: ${t.error?.message ?? t.stderr.trim()}`;
  return undefined;
}

const reason = whyNot();

/** True when this process now runs on the load core and targets can be pinned to theirs. */
export const pinned = reason === undefined;

/** A loud line saying how the run was pinned (or why not). */
export function pinningLine(): string {
  return pinned
    ? `pinned: target on core ${TARGET_CORE}; load generator and vendor stand-in on core ${LOAD_CORE}`
    : `NOT PINNED (${reason}): the target shares the cores with the load generator; ratios are not comparable with pinned runs`;
}

/** The command and arguments that run `node args` on the target core (or unpinned). */
export function onTargetCore(args: string[]): [string, string[]] {
  return pinned ? ['taskset', ['-c', String(TARGET_CORE), process.execPath, ...args]] : [process.execPath, args];
}

/** Busy and total ticks of one core (/proc/stat `cpuN`), to tell whether the load core was the bottleneck. */
export function coreTicks(core: number): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${core} `));
  if (!line) return { busy: 0, total: 0 };
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - f[4], total };
}
