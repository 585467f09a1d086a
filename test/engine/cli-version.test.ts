// `engine --version` prints the version of package.json.
import { it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';

it('engine --version prints the package version', async () => {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/engine.js', '--version'], { timeout: 30_000 });
  expect(stdout.trim()).toBe(version);
}, 40_000);
