// `engine dry-run`, spawned as a user runs it: what a project would reach is checked without any
// business traffic (DNS, TCP, TLS of each client, the AMQP login, the durable store, the gateway's
// key set), one line per check, exit 1 when one fails. Real sockets: a closed port, a name that
// cannot resolve, the local RabbitMQ with a wrong password, an https server whose certificate
// expires in 10 days.

import { describe, it, expect, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as tcpConnect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { engineCli } from '../helpers/cli.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const LINE = /^(ok|warn|FAIL) +(\S+) +(\S+) +(\S+) +\d+ ms {2}\S/;
const checkLines = (out: string) => out.split('\n').filter((l) => LINE.test(l));

/** A project with one HTTP client, `vendor`, at the environmental key vendor-base-url (`proxy`: the env's proxy). */
function clientProject(proxy = false): string {
  return tmpProject({
    'values/vendor.values.yaml': 'vendor:\n  baseUrl: ${vendor-base-url}\n',
    'routes/vendor/connector.yaml': [
      'values: vendor',
      'clients:',
      '  vendor:',
      '    base-url: "{{vendor.baseUrl}}"',
      ...(proxy ? ['    proxy: true'] : []),
      '',
    ].join('\n'),
    'routes/vendor/get.yaml': [
      'id: get-thing',
      'from:',
      '  http: { method: GET, path: /things }',
      'steps:',
      '  - to-http: { client: vendor, method: GET, path: /things }',
      '',
    ].join('\n'),
  });
}

/** A port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const s = createNetServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** A CONNECT proxy on 127.0.0.1 tunnelling where it is asked (407 without `auth`), noting each CONNECT. */
async function connectProxy(auth?: string) {
  const seen: { target: string; authorization?: string }[] = [];
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client) => {
    seen.push({ target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    if (auth && req.headers['proxy-authorization'] !== `Basic ${Buffer.from(auth).toString('base64')}`) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = tcpConnect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, seen, close: () => server.close() };
}

describe('engine dry-run', () => {
  it('sandbox: every check passes against the simulators, one line each, exit 0; --json says the same', async () => {
    const r = await engineCli(['dry-run', '--env', 'sandbox'], { timeoutMs: 90_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = checkLines(r.stdout);
    const body = r.stdout.trimEnd().split('\n');
    // every line but the summary is a check
    expect(lines).toHaveLength(body.length - 1);
    expect(body.at(-1)).toBe(`${lines.length} check(s): 0 failed, 0 warning(s)`);
    const seen = lines.map((l) => LINE.exec(l)!.slice(1, 5).join(' '));
    for (const client of ['hubvendor', 'achvendor', 'screenvendor', 'eventhub', 'platform-backend']) {
      expect(seen.some((s) => s.startsWith(`ok dns ${client} 127.0.0.1:`))).toBe(true);
      expect(seen.some((s) => s.startsWith(`ok tcp ${client} 127.0.0.1:`))).toBe(true);
    }
    expect(seen.some((s) => s.startsWith('ok amqp-login payment-status-inbound 127.0.0.1:'))).toBe(true);
    expect(seen.some((s) => s.startsWith('ok store embedded'))).toBe(true);
    expect(r.stdout).toMatch(/^ok +jwks +gateway .* signing key\(s\) from http:\/\/127\.0\.0\.1:\d+\/jwks$/m);
    // the sandbox's AMQP password, a configured secret, is never printed
    expect(r.stdout).not.toContain('sandbox-amqp-password');

    const j = await engineCli(['dry-run', '--env', 'sandbox', '--json'], { timeoutMs: 90_000 });
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.stdout) as { ok: boolean; checks: { status: string; check: string }[] };
    expect(doc.ok).toBe(true);
    expect(doc.checks.length).toBe(lines.length);
    expect(doc.checks.every((c) => c.status === 'ok')).toBe(true);
  }, 200_000);

  it("the gateway's key set out of reach fails the jwks check, exit 1", async () => {
    const port = await closedPort();
    const r = await engineCli(
      [
        'dry-run',
        '--env',
        'sandbox',
        '--set',
        `gateway-oidc-discovery-url=http://127.0.0.1:${port}/.well-known/openid-configuration`,
      ],
      { timeoutMs: 90_000 },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `^FAIL jwks +gateway +127\\.0\\.0\\.1:${port} +\\d+ ms {2}GET http://127\\.0\\.0\\.1:${port}/\\.well-known/openid-configuration: connect ECONNREFUSED`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/: 1 failed, 0 warning\(s\)$/m);
  }, 120_000);

  it('a client at a closed port fails the tcp check naming the client and host:port, exit 1', async () => {
    const port = await closedPort();
    const r = await engineCli(['dry-run', '--set', `vendor-base-url=http://127.0.0.1:${port}/api`], {
      cwd: clientProject(),
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^ok +dns +vendor +127\\.0\\.0\\.1:${port} `, 'm'));
    expect(r.stdout).toMatch(
      new RegExp(`^FAIL tcp +vendor +127\\.0\\.0\\.1:${port} +\\d+ ms {2}connection refused`, 'm'),
    );
    expect(r.stdout).toMatch(/: 1 failed, 0 warning\(s\)$/m);
    // no tools files: the gateway does not run, so its keys are not checked
    expect(r.stdout).not.toMatch(/ jwks /);
  }, 90_000);

  it('a client with proxy: true is checked through the proxy the environment names: its dns and tcp, then the tunnel', async () => {
    const proxy = await connectProxy();
    const vendor = createNetServer((s) => s.end()).listen(0, '127.0.0.1');
    await new Promise((r) => vendor.once('listening', r));
    const vendorPort = (vendor.address() as AddressInfo).port;
    try {
      // the vendor's name resolves at the proxy only: the dry-run must not look it up itself
      const r = await engineCli(['dry-run', '--set', `vendor-base-url=http://127.0.0.1:${vendorPort}/api`], {
        cwd: clientProject(true),
        env: { HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: '' },
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^ok +dns +vendor +127\\.0\\.0\\.1:${proxy.port} +\\d+ ms {2}proxy: `, 'm'));
      expect(r.stdout).toMatch(new RegExp(`^ok +tcp +vendor +127\\.0\\.0\\.1:${proxy.port} +\\d+ ms {2}proxy: `, 'm'));
      expect(r.stdout).toMatch(
        new RegExp(
          `^ok +tunnel +vendor +127\\.0\\.0\\.1:${vendorPort} +\\d+ ms {2}through the proxy 127\\.0\\.0\\.1:${proxy.port}$`,
          'm',
        ),
      );
      expect(proxy.seen.map((x) => x.target)).toEqual([`127.0.0.1:${vendorPort}`]);
      // NO_PROXY exempts the vendor: checked directly, the proxy hears nothing
      const direct = await engineCli(['dry-run', '--set', `vendor-base-url=http://127.0.0.1:${vendorPort}/api`], {
        cwd: clientProject(true),
        env: { HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: 'localhost,127.0.0.1' },
        timeoutMs: 60_000,
      });
      expect(direct.code).toBe(0);
      expect(direct.stdout).toMatch(new RegExp(`^ok +tcp +vendor +127\\.0\\.0\\.1:${vendorPort} `, 'm'));
      expect(direct.stdout).not.toMatch(/ tunnel /);
      expect(proxy.seen).toHaveLength(1);
    } finally {
      proxy.close();
      vendor.close();
    }
  }, 120_000);

  it('a proxy that refuses the credentials fails the tunnel check, the password never shown', async () => {
    const password = 'proxy-secret-5d1e';
    const proxy = await connectProxy(`ops:${password}`);
    try {
      const r = await engineCli(['dry-run', '--set', 'vendor-base-url=https://vendor.example.test/api'], {
        cwd: clientProject(true),
        env: { HTTPS_PROXY: `http://ops:wrong-${password}@127.0.0.1:${proxy.port}`, NO_PROXY: '' },
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /^FAIL tunnel +vendor +vendor\.example\.test:443 +\d+ ms {2}the proxy refused its credentials \(407\)$/m,
      );
      expect(r.stdout + r.stderr).not.toContain(password);
      // the vendor's name was left to the proxy: no dns line for it
      expect(r.stdout).not.toMatch(/ dns +vendor +vendor\.example\.test/);
      expect(proxy.seen[0]?.target).toBe('vendor.example.test:443');
    } finally {
      proxy.close();
    }
  }, 90_000);

  it('a host that does not resolve fails the dns check with a DNS reason; tcp is not tried', async () => {
    const r = await engineCli(['dry-run', '--set', 'vendor-base-url=https://no-such-host.invalid/api'], {
      cwd: clientProject(),
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^FAIL dns +vendor +no-such-host\.invalid:443 +\d+ ms {2}DNS: no such host 'no-such-host\.invalid'$/m,
    );
    expect(r.stdout).not.toMatch(/ tcp +vendor /);
  }, 90_000);

  it('the PostgreSQL store: connected with its migrations level; at a closed port it fails, the password never shown', async () => {
    const password = 'pg-secret-in-the-url-91c2';
    const up = await engineCli(['dry-run', '--set', 'vendor-base-url=http://127.0.0.1:9'], {
      cwd: clientProject(),
      env: { ENGINE_STORE_POSTGRES_URL: `postgres://postgres:${password}@127.0.0.1:5432/test` },
      timeoutMs: 60_000,
    });
    expect(up.stdout).toMatch(
      /^(ok|warn) +store +postgres +127\.0\.0\.1:5432 +\d+ ms {2}connected; (migrations at \d+|schema 'engine' has no migrations)/m,
    );
    const port = await closedPort();
    const down = await engineCli(['dry-run', '--set', 'vendor-base-url=http://127.0.0.1:9'], {
      cwd: clientProject(),
      env: { ENGINE_STORE_POSTGRES_URL: `postgres://postgres:${password}@127.0.0.1:${port}/test` },
      timeoutMs: 60_000,
    });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(
      new RegExp(`^FAIL store +postgres +127\\.0\\.0\\.1:${port} +\\d+ ms {2}PostgreSQL: .*ECONNREFUSED`, 'm'),
    );
    expect(up.stdout + up.stderr + down.stdout + down.stderr).not.toContain(password);
  }, 90_000);

  describe('AMQP login on the local RabbitMQ (guest/guest)', () => {
    const project = () =>
      tmpProject({
        'values/broker.values.yaml': [
          'amqp:',
          '  url: amqp://127.0.0.1:5672',
          '  username: ${broker-username}',
          '  password: ${broker-password}',
          '',
        ].join('\n'),
        'routes/broker/consume.yaml': [
          'id: consume-status',
          'values: broker',
          'from:',
          '  amqp:',
          '    url: "{{amqp.url}}"',
          '    username: "{{amqp.username}}"',
          '    password: "{{amqp.password}}"',
          '    mapping: dry-run-status>consume-status',
          'steps:',
          '  - log: { message: got one }',
          '',
        ].join('\n'),
      });

    it('the right password logs in', async () => {
      const r = await engineCli(['dry-run', '--set', 'broker-username=guest', '--set', 'broker-password=guest'], {
        cwd: project(),
        timeoutMs: 60_000,
      });
      expect(r.stdout).toMatch(/^ok +amqp-login +consume-status +127\.0\.0\.1:5672 .* logged in as 'guest'/m);
      expect(r.code).toBe(0);
    }, 90_000);

    it('a wrong password fails naming the credentials keys, never the password', async () => {
      const wrong = 'not-the-guest-password-7f3a';
      const r = await engineCli(['dry-run', '--set', 'broker-username=guest', '--set', `broker-password=${wrong}`], {
        cwd: project(),
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /^FAIL amqp-login +consume-status +127\.0\.0\.1:5672 +\d+ ms {2}login refused for user 'guest': check broker-username \/ broker-password/m,
      );
      expect(r.stdout + r.stderr).not.toContain(wrong);
      const j = await engineCli(
        ['dry-run', '--json', '--set', 'broker-username=guest', '--set', `broker-password=${wrong}`],
        { cwd: project(), timeoutMs: 60_000 },
      );
      expect(j.code).toBe(1);
      expect(j.stdout).not.toContain(wrong);
      expect(JSON.parse(j.stdout).ok).toBe(false);
    }, 120_000);
  });

  describe('TLS certificate expiry', () => {
    const dir = tmpProject({});
    // self-signed for localhost, valid 10 days; the child trusts it (NODE_EXTRA_CA_CERTS)
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '10',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const server = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_req, res) => res.end('{}'),
    ).listen(0, '127.0.0.1');
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('a certificate expiring in 10 days warns with the days left; a warning is not a failure (exit 0)', async () => {
      const { port } = server.address() as AddressInfo;
      const r = await engineCli(['dry-run', '--set', `vendor-base-url=https://localhost:${port}`], {
        cwd: clientProject(),
        env: { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') },
        timeoutMs: 60_000,
      });
      expect(r.stdout).toMatch(new RegExp(`^ok +tcp +vendor +localhost:${port} `, 'm'));
      expect(r.stdout).toMatch(
        new RegExp(
          `^warn tls +vendor +localhost:${port} +\\d+ ms {2}certificate of localhost expires \\d{4}-\\d\\d-\\d\\d: (9|10) day\\(s\\) left \\(under 30\\)$`,
          'm',
        ),
      );
      expect(r.code).toBe(0);
    }, 90_000);

    it('the same certificate, not trusted, fails the tls check', async () => {
      const { port } = server.address() as AddressInfo;
      const r = await engineCli(['dry-run', '--set', `vendor-base-url=https://localhost:${port}`], {
        cwd: clientProject(),
        env: { NODE_EXTRA_CA_CERTS: undefined },
        timeoutMs: 60_000,
      });
      expect(r.stdout).toMatch(new RegExp(`^FAIL tls +vendor +localhost:${port} +\\d+ ms {2}TLS: self.signed`, 'm'));
      expect(r.code).toBe(1);
    }, 90_000);
  });
});
