// Each start-up failure a user causes is one line in words, no stack trace, exit 1: a wrong OTEL_*
// or ENGINE_* variable names the variable and what it may be, a bad flag names the flag, a port or
// address that cannot be used says which and what changes it, a route folder or secrets directory
// that is not there is a diagnostic. A defect's stack names no directory of the machine.

import { describe, it, expect } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { engineCli, type CliResult } from '../helpers/cli.ts';
import { relativeStack, reportFailure } from '../../engine/cli/startup-errors.ts';

/** The foreign exchange connector alone, outside the sandbox: nothing to start but the listener. */
const RUN = ['run', 'routes/hubvendor-foreign-exchange', '--port', '0'];
const KEYS = { HUBVENDOR_BASE_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'warn' };

/** Exit 1 and exactly `line` on standard error: one line, no stack trace. */
function saysOnly(r: CliResult, line: string): void {
  expect(r.stderr).toBe(line + '\n');
  expect(r.code).toBe(1);
}

describe('start-up failures a user causes: one line, exit 1', () => {
  it.each([
    [
      { OTEL_TRACES_EXPORTER: 'jaeger' },
      "engine: OTEL_TRACES_EXPORTER: unknown exporter 'jaeger'; allowed: otlp, console, none (comma-separated)",
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      "engine: OTEL_EXPORTER_OTLP_PROTOCOL: the engine exports OTLP over HTTP (port 4318), not 'grpc'; allowed: http/protobuf, http/json",
    ],
    [
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml' },
      "engine: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: the engine exports OTLP over HTTP (port 4318), not 'http/xml'; allowed: http/protobuf, http/json",
    ],
    [{ ENGINE_CONSOLE_ENABLED: 'maybe' }, 'engine: ENGINE_CONSOLE_ENABLED must be true or false (got "maybe")'],
  ])(
    'a wrong variable %j names it and the allowed values',
    async (env, line) => {
      saysOnly(await engineCli(RUN, { env: { ...KEYS, ...env } }), line);
    },
    60_000,
  );

  it.each([
    [
      ['--port', 'abc'],
      "error: option '--port <n>' argument 'abc' is invalid. A port is a whole number from 0 to 65535 (0: any free port).",
    ],
    [
      ['--port', '70000'],
      "error: option '--port <n>' argument '70000' is invalid. A port is a whole number from 0 to 65535 (0: any free port).",
    ],
    [
      ['--set', 'hubvendor-base-url'],
      "error: option '--set <key=value>' argument 'hubvendor-base-url' is invalid. --set expects key=value (a property or an environmental key), e.g. --set vendor-base-url=https://vendor.example.test",
    ],
    [['--prot', '8080'], "error: unknown option '--prot'\n(Did you mean --port?)"],
  ])(
    'a bad flag %j names the flag',
    async (flags, line) => {
      saysOnly(await engineCli([...RUN, ...flags], { env: KEYS }), line);
    },
    60_000,
  );

  it('a port in use, and an address not of this machine, say which and what changes it', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as AddressInfo).port;
    try {
      saysOnly(
        await engineCli(['run', 'routes/hubvendor-foreign-exchange', '--port', String(port)], { env: KEYS }),
        `engine: cannot listen on port ${port} of 127.0.0.1: it is in use by another process (EADDRINUSE); ` +
          'choose another with --port N (0: any free port) or engine.server.port in the environment file (--env NAME)',
      );
    } finally {
      holder.close();
    }
    saysOnly(
      await engineCli([...RUN, '--host', '192.0.2.1'], { env: KEYS }),
      'engine: cannot listen on address 192.0.2.1: it is not an address of this machine (EADDRNOTAVAIL); ' +
        'choose another with --host ADDR or engine.server.host in the environment file (--env NAME)',
    );
  }, 60_000);

  it('a route folder that is not there is a diagnostic, not an empty start; a --secrets directory that is not there is named with the keys it did not give', async () => {
    saysOnly(
      await engineCli(['run', 'routes/hubvendor-foreign-exchang', '--port', '0'], { env: KEYS }),
      "routes/hubvendor-foreign-exchang:1:1 no such route file or folder; did you mean 'hubvendor-foreign-exchange'?\n" +
        'engine: 1 problem(s); not starting',
    );
    const args = ['lint', 'routes/hubvendor-foreign-exchange', '--env', 'staging', '--secrets', 'no-such-secrets'];
    const lint = await engineCli(args, { env: { HUBVENDOR_BASE_URL: undefined } });
    expect(lint.code).toBe(1);
    expect(lint.stdout).toMatch(
      /^values\/foreign-exchange-v1\.values\.yaml:6:12 environmental key 'hubvendor-base-url' is not set .* or pass --set hubvendor-base-url=\.\.\. \(the --secrets directory no-such-secrets does not exist\)\n1 problem\(s\)\n$/,
    );
    // an image's --secrets directory, which only a deployment mounts, is no problem while no key is missing
    expect(await engineCli(args, { env: { HUBVENDOR_BASE_URL: 'https://hub.example.test' } })).toMatchObject({
      code: 0,
      stdout: 'no problems\n',
    });
  }, 60_000);
});

describe('a defect (not the user): its stack names no directory of the machine', () => {
  it('paths below the package are relative, as file paths and as file: URLs', () => {
    const root = resolve('.');
    const err = new Error('boom');
    err.stack = [
      'Error: boom',
      `    at start (${root}${sep}dist${sep}engine.cjs:10:5)`,
      `    at async file://${pathToFileURL(root).pathname}/bin/engine.js:56:1`,
    ].join('\n');
    let out = '';
    const before = process.exitCode;
    reportFailure(err, (t) => (out += t));
    process.exitCode = before;
    expect(out).toBe(
      'engine: internal error (a defect of the engine, please report it): Error: boom\n' +
        '    at start (dist/engine.cjs:10:5)\n    at async bin/engine.js:56:1\n',
    );
    expect(relativeStack(err.stack!)).not.toContain(root);
  });
});
