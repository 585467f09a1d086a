// The hand-written limit of the gateway's `tools/call getExchangeRate`: a raw JSON-RPC handler on
// node:http doing the same work and nothing else — the subscription key (SHA-256, constant-time
// compare), the bearer JWT (jose, verified once, then served from a cache keyed by the token string
// until its `exp`), the JSON-RPC shape, the FX tool's validation (compiled ajv, the amount's minor
// units), the same vendor call (undici Pool `dispatch`, body as text), the same mapping and a
// JSON-RPC result with its content-length. No rate limits, metrics or logs: a stricter baseline
// than the engine's work. Prints its URL. `node --import tsx bench/gateway/limit.ts VENDOR_URL`
import { createServer } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { importJWK, jwtVerify } from 'jose';
import { createAjv } from '../../engine/schemas/schemas.ts';
import { amountValid } from '../../engine/core/functions.ts';
import { SANDBOX_AUDIENCE, SANDBOX_ISSUER, SANDBOX_PRIVATE_JWK } from '../../sandbox/idp/sandbox-key.ts';
import { call, readText, reply, vendorPool } from '../lib/limit.ts';

const pool = vendorPool(process.argv[2]);
const validate = createAjv().compile(
  JSON.parse(readFileSync('routes/hubvendor-foreign-exchange/schemas/exchange-rate-request.schema.json', 'utf8')),
);
const KEY = createHash('sha256').update('sandbox-demo-subscription-key').digest();
const publicKey = await importJWK({ kty: 'RSA', n: SANDBOX_PRIVATE_JWK.n, e: SANDBOX_PRIVATE_JWK.e }, 'RS256');
/** verified tokens: subject and expiry (ms) by the exact token string */
const verified = new Map<string, { sub: string; exp: number }>();
const HEADERS = { accept: 'application/json' };

async function user(auth: string | undefined): Promise<string | undefined> {
  if (!auth?.startsWith('Bearer ')) return undefined;
  const token = auth.slice(7);
  const hit = verified.get(token);
  if (hit && hit.exp > Date.now()) return hit.sub;
  try {
    const { payload } = await jwtVerify(token, publicKey, {
      issuer: SANDBOX_ISSUER,
      audience: SANDBOX_AUDIENCE,
      algorithms: ['RS256'],
      requiredClaims: ['exp', 'sub'],
    });
    verified.set(token, { sub: payload.sub!, exp: payload.exp! * 1000 });
    return payload.sub;
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
    const key = req.headers['ocp-gateway-subscription-key'];
    if (typeof key !== 'string' || !timingSafeEqual(createHash('sha256').update(key).digest(), KEY)) {
      reply(res, 401, '{"error":"invalid_subscription_key"}');
      return;
    }
    if ((await user(req.headers.authorization)) === undefined) {
      reply(res, 401, '{"error":"invalid_token"}');
      return;
    }
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      reply(res, 400, rpcError(null, -32700, 'Parse error'));
      return;
    }
    const id = msg?.id ?? null;
    if (msg?.jsonrpc !== '2.0' || msg.method !== 'tools/call') {
      reply(res, 400, rpcError(id, -32600, 'Invalid Request'));
      return;
    }
    if (msg.params?.name !== 'getExchangeRate') {
      reply(res, 200, rpcError(id, -32602, 'Unknown tool'));
      return;
    }
    const b: any = msg.params.arguments ?? {};
    if (
      !validate(b as object) ||
      (b.transactionAmount !== undefined &&
        !amountValid(b.transactionAmount, b.transactionAmountType === 'SELL' ? b.sellCurrency : b.buyCurrency))
    ) {
      reply(res, 200, toolError(id, 'invalid arguments'));
      return;
    }
    const path = `/v1/forex/exchange-rates/${encodeURIComponent(b.buyCurrency)}/${encodeURIComponent(b.sellCurrency)}/${encodeURIComponent(b.transactionAmount ?? '1')}/${encodeURIComponent(b.transactionAmountType ?? 'BUY')}?currencyMarket=1`;
    try {
      const r = await call(pool, { method: 'GET', path, headers: HEADERS });
      if (r.status !== 200) {
        reply(res, 200, toolError(id, 'vendor error'));
        return;
      }
      const v = JSON.parse(r.text).body;
      const out = JSON.stringify({
        buyCurrency: v.buyCurrencyId,
        sellCurrency: v.sellCurrencyId,
        currencyMarket: String(v.currencyMarketId),
        buyRate: v.buyRate,
        sellRate: v.sellRate,
        middleRate: v.middleRate,
        quotationCode: v.quotationCode,
        rateDate: v.rateDate,
        transactionAmount: String(v.transactionAmount),
        transactionAmountType: v.transactionAmountType,
      });
      reply(
        res,
        200,
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(out)}}],"structuredContent":${out},"isError":false}}`,
      );
    } catch {
      reply(res, 200, toolError(id, 'vendor error'));
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
