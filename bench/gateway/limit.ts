// The hand-written limit of the gateway's `tools/call getExchangeRate`: a raw JSON-RPC handler on
// node:http doing the same work and nothing else — the subscription key (SHA-256, constant-time
// compare), the bearer JWT (jose, verified once, then served from a cache keyed by the token string
// until its `exp`; a token not seen before paid for from the client IP's budget first), the user's
// and the subscription's rate limits (exact sliding windows in memory, limit-rate.ts) and their
// RateLimit-* headers, the JSON-RPC shape, the FX tool's validation (compiled ajv, the amount's minor
// units), the same vendor call (undici Pool `dispatch`, body as text), the same mapping checked
// against the route's output schema, a JSON-RPC result with its content-length and correlation id,
// and, when ENGINE_STORE_POSTGRES_URL is set, the gateway's audit record of every decision in the
// same hash-chained table (limit-audit.ts). No metrics or logs: a stricter baseline than the
// engine's work. Prints its URL. `node --import tsx bench/gateway/limit.ts VENDOR_URL`
import { createServer } from 'node:http';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { importJWK, jwtVerify } from 'jose';
import { createAjv } from '../../engine/schemas/schemas.ts';
import { amountValid } from '../../engine/core/functions.ts';
import { SANDBOX_AUDIENCE, SANDBOX_ISSUER, SANDBOX_PRIVATE_JWK } from '../../sandbox/idp/sandbox-key.ts';
import { call, readText, vendorPool } from '../lib/limit.ts';
import { SlidingLimits } from './limit-rate.ts';
import { argsDigest, LimitAudit, type Decision } from './limit-audit.ts';
import { fxAnswer, fxVendorPath } from '../lib/fx-vendor.ts';

const pool = vendorPool(process.argv[2]);
const validate = createAjv().compile(
  JSON.parse(readFileSync('routes/hubvendor-foreign-exchange/schemas/exchange-rate-request.schema.json', 'utf8')),
);
const checkOutput = createAjv().compile(
  JSON.parse(readFileSync('routes/hubvendor-foreign-exchange/schemas/exchange-rate-response.schema.json', 'utf8')),
);
const KEY = createHash('sha256').update('sandbox-demo-subscription-key').digest();
/** the subscription of the key (values/gateway.values.yaml) and the key's id, as the trail names them */
const SUBSCRIPTION = 'demo-agent';
const KEY_ID = KEY.toString('hex').slice(0, 12);
// the gateway's windows and limits as the benchmark runs it (bench/strict/targets.ts raises the
// user's and the subscription's to 10^9; the anonymous IP budget stays the sandbox's 20)
const limits = new SlidingLimits(60_000);
const USER_LIMIT = 1_000_000_000;
const PUBLIC_LIMIT = 1_000_000_000;
const IP_LIMIT = 20;
const storeUrl = process.env.ENGINE_STORE_POSTGRES_URL;
const audit = storeUrl ? await LimitAudit.open(storeUrl) : undefined;
const publicKey = await importJWK({ kty: 'RSA', n: SANDBOX_PRIVATE_JWK.n, e: SANDBOX_PRIVATE_JWK.e }, 'RS256');
interface User {
  sub: string;
  iss: string;
  jti?: string;
  exp: number;
}
/** verified tokens: subject, issuer, id and expiry (ms) by the exact token string */
const verified = new Map<string, User>();
const HEADERS = { accept: 'application/json' };

async function user(auth: string | undefined, ip: string): Promise<User | undefined | 'limited'> {
  if (!auth?.startsWith('Bearer ')) return undefined;
  const token = auth.slice(7);
  const hit = verified.get(token);
  if (hit && hit.exp > Date.now()) return hit;
  if (!limits.hit1(ip, IP_LIMIT)) return 'limited';
  try {
    const { payload } = await jwtVerify(token, publicKey, {
      issuer: SANDBOX_ISSUER,
      audience: SANDBOX_AUDIENCE,
      algorithms: ['RS256'],
      requiredClaims: ['exp', 'sub'],
    });
    const u = { sub: payload.sub!, iss: payload.iss!, jti: payload.jti, exp: payload.exp! * 1000 };
    verified.set(token, u);
    return u;
  } catch {
    return undefined;
  }
}

const rpcError = (id: unknown, code: number, message: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
const toolError = (id: unknown, detail: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: detail }], isError: true } });

const server = createServer((req, res) =>
  readText(req, async (text) => {
    const correlationId = randomUUID();
    const clientIp = req.socket.remoteAddress!;
    const reply = (status: number, payload: string, headers?: Record<string, string | number>) => {
      res
        .writeHead(status, {
          'content-type': 'application/json',
          ...headers,
          'x-correlation-id': correlationId,
          'content-length': Buffer.byteLength(payload),
        })
        .end(payload);
    };
    const refuse = (status: number, check: string, payload: string, keyId?: string) => {
      audit?.record({ kind: 'refusal', check, outcome: 'refused', keyId, correlationId, clientIp });
      reply(status, payload);
    };
    const key = req.headers['ocp-gateway-subscription-key'];
    if (typeof key !== 'string' || !timingSafeEqual(createHash('sha256').update(key).digest(), KEY)) {
      refuse(401, 'invalid_key', '{"error":"invalid_subscription_key"}');
      return;
    }
    const u = await user(req.headers.authorization, clientIp);
    if (u === undefined || u === 'limited') {
      if (u === undefined) refuse(401, 'invalid_token', '{"error":"invalid_token"}', KEY_ID);
      else refuse(429, 'rate_limit', '{"error":"rate_limited"}', KEY_ID);
      return;
    }
    const rl = limits.hit2(`user:${u.sub}`, USER_LIMIT, `public:${SUBSCRIPTION}`, PUBLIC_LIMIT);
    if (!rl.allowed) {
      refuse(429, 'rate_limit', '{"error":"rate_limited"}', KEY_ID);
      return;
    }
    const rateHeaders = {
      'ratelimit-limit': rl.limit,
      'ratelimit-remaining': rl.remaining,
      'ratelimit-reset': rl.resetSeconds,
    };
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      refuse(400, 'parse_error', rpcError(null, -32700, 'Parse error'), KEY_ID);
      return;
    }
    const id = msg?.id ?? null;
    if (msg?.jsonrpc !== '2.0' || msg.method !== 'tools/call') {
      refuse(400, 'invalid_request', rpcError(id, -32600, 'Invalid Request'), KEY_ID);
      return;
    }
    if (msg.params?.name !== 'getExchangeRate') {
      refuse(200, 'unknown_tool', rpcError(id, -32602, 'Unknown tool'), KEY_ID);
      return;
    }
    const b: any = msg.params.arguments ?? {};
    // the call's record, its outcome filled in when the tool has answered
    const decision: Decision | undefined = audit && {
      kind: 'call',
      tool: 'getExchangeRate',
      subscription: SUBSCRIPTION,
      keyId: KEY_ID,
      user: u.sub,
      issuer: u.iss,
      jti: u.jti,
      argsDigest: argsDigest(b),
      correlationId,
      clientIp,
    };
    const answer = (result: string, code?: string) => {
      if (decision) audit!.record({ ...decision, outcome: code ? 'error' : 'ok', code });
      reply(200, result, rateHeaders);
    };
    if (
      !validate(b as object) ||
      (b.transactionAmount !== undefined &&
        !amountValid(b.transactionAmount, b.transactionAmountType === 'SELL' ? b.sellCurrency : b.buyCurrency))
    ) {
      answer(toolError(id, 'invalid arguments'), 'GC025');
      return;
    }
    const path = fxVendorPath(b);
    try {
      const r = await call(pool, { method: 'GET', path, headers: HEADERS });
      if (r.status !== 200) {
        answer(toolError(id, 'vendor error'), 'GC027');
        return;
      }
      const v = JSON.parse(r.text).body;
      const mapped = fxAnswer(v);
      if (!checkOutput(mapped)) {
        answer(toolError(id, 'vendor answer does not match the output schema'), 'GC027');
        return;
      }
      const out = JSON.stringify(mapped);
      answer(
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(out)}}],"structuredContent":${out},"isError":false}}`,
      );
    } catch {
      answer(toolError(id, 'vendor error'), 'GC027');
    }
  }),
);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as any).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
