// `engine run` on a port another process holds (a second `npm start`, a leftover engine) says so in
// one line and exits 1: before, Node's EADDRINUSE stack trace was all an operator saw.

import { expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/engine.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('a port in use is one line naming it, --port N and engine.server.port, exit 1, no stack trace', async () => {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const port = (holder.address() as AddressInfo).port;
  try {
    const child = spawn(
      process.execPath,
      [BIN, 'run', 'routes/hubvendor-foreign-exchange', '--env', 'sandbox', '--port', String(port)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LOG_LEVEL: 'warn' },
      },
    );
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    child.stdout!.resume();
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(err).toBe(
      `engine: cannot listen on port ${port} of 127.0.0.1: it is in use by another process (EADDRINUSE); ` +
        'choose another with --port N (0: any free port) or engine.server.port in values/environments/sandbox.yaml\n',
    );
    expect(err).not.toMatch(/\n\s+at /);
  } finally {
    holder.close();
  }
}, 60_000);
