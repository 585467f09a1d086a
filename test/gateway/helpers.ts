// Shared set-up of the gateway tests: an engine with the gateway extension, the FX, platform
// backend and gateway routes on the sandbox, and a small JSON-RPC client over real HTTP.

import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { gatewayExtension, type GatewayExtension } from '../../engine/gateway/index.ts';
import type { Idp } from '../../sandbox/idp/index.ts';
import { ibansOfUser, type PlatformBackend } from '../../sandbox/platform-backend/index.ts';

export const ROUTES = ['routes/gateway', 'routes/platform-backend', 'routes/hubvendor-foreign-exchange'];
export const KEY = 'sandbox-demo-subscription-key';
export const KEY2 = 'sandbox-demo-subscription-key-secondary';
export const FX_ONLY_KEY = 'sandbox-fx-only-subscription-key';

export interface GatewayTestEngine extends TestEngine {
  gateway: GatewayExtension;
  idp: Idp;
  platform: PlatformBackend;
  /** POST /mcp with the demo key (unless headers say otherwise) */
  mcp(body: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: any }>;
  rpc(
    method: string,
    params?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: any }>;
  token(sub: string, ttl?: number): Promise<string>;
}

export async function startGateway(
  set: Record<string, string> = {},
  extra: Parameters<typeof startTestEngine>[0] = {},
  /** the audit trail on: give the engine a durable store of its own (durableSchemaExtension) */
  audit = false,
): Promise<GatewayTestEngine> {
  const gateway = gatewayExtension({ audit });
  const engine = await startTestEngine({
    routes: ROUTES,
    set,
    ...extra,
    extensions: [...(extra.extensions ?? []), gateway],
  });
  const idp = engine.sandbox.services.idp as Idp;
  const platform = engine.sandbox.services.platform as PlatformBackend;
  let n = 0;
  const mcp: GatewayTestEngine['mcp'] = (body, headers = {}) =>
    engine.request('POST', '/mcp', body, {
      'ocp-gateway-subscription-key': KEY,
      accept: 'application/json, text/event-stream',
      ...headers,
    });
  const rpc: GatewayTestEngine['rpc'] = (method, params, headers) =>
    mcp({ jsonrpc: '2.0', id: ++n, method, ...(params === undefined ? {} : { params }) }, headers);
  return Object.assign(engine, {
    gateway,
    idp,
    platform,
    mcp,
    rpc,
    token: (sub: string, ttl?: number) => idp.sign({ sub, ttl }),
  });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/**
 * The arguments of initiatePaymentOrder: a SEPA payment of `amount` EUR from alice's first account
 * to Jane Doe, executed on `date`, its end-to-end reference `<prefix>-<now>` (tests find their own
 * payments at the hub by the prefix).
 */
export function paymentOrder(prefix: string, amount: string, date: string) {
  return {
    paymentType: 'SEPA',
    requestedExecutionDate: date,
    originatorAccount: {
      name: 'alice account holder',
      identification: { identification: ibansOfUser('alice')[0], schemeName: 'IBAN' },
    },
    transferTransactionInformation: {
      endToEndIdentification: `${prefix}-${Date.now()}`,
      instructedAmount: { amount, currencyCode: 'EUR' },
      counterparty: { name: 'Jane Doe' },
      counterpartyAccount: { identification: { identification: 'FR1420041010050500013M02606', schemeName: 'IBAN' } },
    },
  };
}
