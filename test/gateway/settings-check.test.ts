// A wrong gateway setting (a trusted proxy that is no address, a count that is no whole number,
// an onError that is neither allow nor deny) is a diagnostic at its value in the values file: lint
// says it, `engine run` refuses to start with the same line (exit 1, no stack trace), and a reload
// is refused with the previous routes and gateway still serving. On a copy of the project.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lintProject } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';
import { ROUTES, startGateway, type GatewayTestEngine } from './helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/engine.js', import.meta.url));
const VALUES = 'values/gateway.values.yaml';

let root: string;
let original: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'engine-gw-settings-'));
  for (const dir of ['values', 'schemas', 'transforms', 'routes'])
    cpSync(dir, join(root, dir), { recursive: true, filter: (src) => !/[/\\]tests$/.test(src) });
  original = readFileSync(join(root, VALUES), 'utf8');
});

/** The gateway values with `from` replaced by `to`; returns the text written. */
function edit(from: string, to: string): string {
  expect(original).toContain(from);
  const text = original.replace(from, to);
  writeFileSync(join(root, VALUES), text);
  return text;
}

/** `values/gateway.values.yaml:line:col` of the first `needle` at or after `after` in `text`. */
function at(text: string, needle: string, after = 0): string {
  const i = text.indexOf(needle, after);
  expect(i, needle).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, i).split('\n');
  return `${VALUES}:${before.length}:${before[before.length - 1].length + 1}`;
}

async function lint(): Promise<string[]> {
  const diags = await lintProject({
    routes: ROUTES,
    root,
    env: 'sandbox',
    logger: createLogger('silent'),
    processEnv: {},
    extensions: [gatewayExtension({ audit: false })],
  });
  const prefix = relative(process.cwd(), root) + '/';
  return diags.map((d) =>
    formatDiagnostic(d)
      .replaceAll(prefix, '')
      .replaceAll(root + '/', ''),
  );
}

const NOT_ADDRESS = 'is not an IPv4 or IPv6 address or CIDR (such as 10.0.0.5, 10.0.0.0/8, 2001:db8::/32)';
/** each wrong entry with what lint says of it; 10.0.0.5 and 2001:db8::/32 are right */
const BAD_PROXIES: [string, string][] = [
  ['10.0.0.300', `'10.0.0.300' ${NOT_ADDRESS}`],
  ['10.0.0.0/99', "'10.0.0.0/99': the prefix length of an IPv4 CIDR is a whole number from 0 to 32"],
  ['10.0.0.0/', "'10.0.0.0/': the prefix length of an IPv4 CIDR is a whole number from 0 to 32"],
  ['2001:db8::/129', "'2001:db8::/129': the prefix length of an IPv6 CIDR is a whole number from 0 to 128"],
  ['2001:db8::zz', `'2001:db8::zz' ${NOT_ADDRESS}`],
  ['garbage', `'garbage' ${NOT_ADDRESS}`],
  ["''", 'an empty entry is not an address or CIDR'],
];
const PROXY_LIST = `  trustedProxies:
    - 10.0.0.5
${BAD_PROXIES.map(([p]) => `    - ${p}\n`).join('')}    - 2001:db8::/32
`;

describe('lint', () => {
  it('says every trusted proxy that is no address or CIDR, at its item', async () => {
    const text = edit('  trustedProxies: []\n', PROXY_LIST);
    const list = text.indexOf('  trustedProxies:');
    expect(await lint()).toEqual(
      BAD_PROXIES.map(
        ([p, message]) =>
          `${at(text, `    - ${p}\n`, list).replace(/:\d+$/, ':7')} gateway: trustedProxies: ${message}`,
      ),
    );
  });

  it('says a comma-separated list at its value', async () => {
    const text = edit('  trustedProxies: []\n', '  trustedProxies: "10.0.0.5, 10.0.0.300"\n');
    expect(await lint()).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${at(text, '"10.0.0.5, 10.0.0.300"')} gateway: trustedProxies: '10\\.0\\.0\\.300' is not an IPv4 or IPv6 address or CIDR`,
        ),
      ),
    ]);
  });

  it('says a count that is no whole number, a requireToken that is no boolean and an unknown onError at their values', async () => {
    let text = original;
    const swaps: [string, string][] = [
      ['  pageSize: 50\n', '  pageSize: 2.5\n'],
      ['  requireToken: false\n', '  requireToken: yes\n'],
      ['    anonymous: 50\n', "    anonymous: ''\n"],
      ['    onError: allow\n', '    onError: maybe\n'],
    ];
    for (const [from, to] of swaps) {
      expect(text).toContain(from);
      text = text.replace(from, to);
    }
    writeFileSync(join(root, VALUES), text);
    expect((await lint()).sort()).toEqual(
      [
        `${at(text, '2.5')} gateway: 'pageSize' must be a whole number >= 1, got 2.5`,
        `${at(text, 'yes')} gateway: 'requireToken' must be true or false, got "yes"`,
        `${at(text, "''", text.indexOf('anonymous:'))} gateway: 'rateLimits.anonymous' must be a whole number >= 0, got ""`,
        `${at(text, 'maybe')} gateway: redis.onError must be 'allow' or 'deny', got 'maybe'`,
      ].sort(),
    );
  });

  it('says a task limit that is no whole number and a task lifetime under a second at their values', async () => {
    let text = original;
    for (const [from, to] of [
      ['    ttlSeconds: 3600\n', '    ttlSeconds: 0\n'],
      ['    maxRunning: 100\n', '    maxRunning: many\n'],
    ]) {
      expect(text).toContain(from);
      text = text.replace(from, to);
    }
    writeFileSync(join(root, VALUES), text);
    expect((await lint()).sort()).toEqual(
      [
        `${at(text, '0', text.indexOf('ttlSeconds: 0'))} gateway: 'tasks.ttlSeconds' must be a number >= 1, got 0`,
        `${at(text, 'many', text.indexOf('maxRunning: many'))} gateway: 'tasks.maxRunning' must be a whole number >= 0, got "many"`,
      ].sort(),
    );
  });

  it('says a wrong engine.server.trustProxy of the environment at its item', async () => {
    writeFileSync(join(root, VALUES), original);
    const envFile = join(root, 'values/environments/sandbox.yaml');
    const env = readFileSync(envFile, 'utf8');
    expect(env).toMatch(/^engine:\n {2}server:\n/m);
    writeFileSync(
      envFile,
      env.replace(/^engine:\n {2}server:\n/m, "engine:\n  server:\n    trustProxy: ['127.0.0.1', '10.0.0.0/33']\n"),
    );
    try {
      const out = await lint();
      const line = env.split('\n').indexOf('engine:') + 3;
      expect(out).toEqual([
        `values/environments/sandbox.yaml:${line}:31 engine.server.trustProxy: '10.0.0.0/33': the prefix length of an IPv4 CIDR is a whole number from 0 to 32 (at engine.server.trustProxy[1])`,
      ]);
    } finally {
      writeFileSync(envFile, env);
    }
  });
});

describe('engine run', () => {
  it('refuses to start with the lint line, exit 1 and no stack trace', async () => {
    const text = edit('  trustedProxies: []\n', '  trustedProxies: [10.0.0.0/99]\n');
    const child = spawn(process.execPath, [BIN, 'run', ...ROUTES, '--env', 'sandbox', '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    let err = '';
    let out = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(err).toContain(
      `${at(text, '10.0.0.0/99')} gateway: trustedProxies: '10.0.0.0/99': the prefix length of an IPv4 CIDR is a whole number from 0 to 32\n`,
    );
    expect(err).toContain('engine: 1 problem(s); not starting');
    expect(err + out).not.toMatch(/\n\s+at /);
    expect(out).not.toContain('engine started');
  }, 60_000);
});

describe('a reload', () => {
  let e: GatewayTestEngine | undefined;
  afterAll(async () => {
    await e?.close();
  });

  it('is refused with the diagnostic; the previous routes and gateway keep serving', async () => {
    writeFileSync(join(root, VALUES), original.replace('  trustedProxies: []\n', '  trustedProxies: [127.0.0.1]\n'));
    e = await startGateway({}, { root });
    const gateway = e.gateway.running!.gateway;
    const text = edit('  trustedProxies: []\n', '  trustedProxies: [127.0.0.1, 10.0.0.300]\n');
    const r = await e.reload('test');
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.diagnostics.map((d) => `${relative(root, d.file)}:${d.line}:${d.col} ${d.message}`)).toEqual([
      `${at(text, '10.0.0.300')} gateway: trustedProxies: '10.0.0.300' is not an IPv4 or IPv6 address or CIDR (such as 10.0.0.5, 10.0.0.0/8, 2001:db8::/32)`,
    ]);
    expect(e.gateway.running!.gateway).toBe(gateway);
    expect(e.gateway.running!.settings.trustedProxies).toEqual(['127.0.0.1']);
    expect((await e.rpc('ping')).status).toBe(200);
  }, 60_000);
});
