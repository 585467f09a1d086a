// LOG_LEVEL as an operator sets it: a wrong value stops `engine run` with one line naming the
// allowed levels (not pino's stack trace); an empty one (`LOG_LEVEL=` in a manifest) means unset.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseLogLevel } from '../../engine/observability/logger.ts';

const ALLOWED = 'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent';

/** Runs `engine run` on the FX route until it exits or logs that it started, then stops it. */
function run(level: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['bin/engine.js', 'run', 'routes/hubvendor-foreign-exchange', '--env', 'sandbox', '--port', '0'],
      {
        env: { ...process.env, LOG_LEVEL: level },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('"engine started"')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('LOG_LEVEL', () => {
  it('stops engine run with one line naming the allowed levels', async () => {
    for (const level of ['verbose', 'information']) {
      const r = await run(level);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(`engine: ${ALLOWED} (got "${level}")`);
      expect(r.stdout).toBe('');
    }
  }, 60_000);

  it('treats an empty LOG_LEVEL as unset: the engine starts and logs at info', async () => {
    const r = await run('');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('"level":"info"');
    expect(r.stdout).toContain('"engine started"');
  }, 60_000);

  it('reads the levels in any case, with spaces around', () => {
    expect(parseLogLevel(undefined)).toBe('info');
    expect(parseLogLevel(' WARN ')).toBe('warn');
    expect(parseLogLevel('silent')).toBe('silent');
    expect(() => parseLogLevel('verbose')).toThrow(ALLOWED);
  });
});
