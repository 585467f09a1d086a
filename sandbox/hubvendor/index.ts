// The hubvendor simulator: a payment hub (release R25 style) on a real HTTP port.
// Paths: ./paths.ts; behaviour of each area in its own file; README: sandbox/README.md.

import {
  type ActiveFault,
  createSimServer,
  type FaultRule,
  type SimHandler,
  type SimLog,
  type SimServer,
} from '../lib/sim-server.ts';
import { byBicHandler, byBranchCodeHandler, byIbanHandler } from './bank-directory.ts';
import { forexRatesHandler } from './forex.ts';
import { ibanValidationHandler } from './iban-validation.ts';
import { PaymentLifecycle, type PaymentStatusMessage } from './lifecycle.ts';
import * as P from './paths.ts';
import { paymentOrderHandlers } from './payment-orders.ts';
import { standingOrderHandlers } from './standing-orders.ts';
import { HubState, type PaymentStatus } from './state.ts';

export type { PaymentStatusMessage } from './lifecycle.ts';
export type { PaymentStatus } from './state.ts';
export { HubState } from './state.ts';
export * from './paths.ts';

export interface HubvendorOptions {
  port?: number;
  host?: string;
  log?: SimLog;
  /** called on every payment order status change (ACCEPTED, PROCESSED, REJECTED, CANCELLED) */
  onPaymentStatus?: (msg: PaymentStatusMessage, trace?: { traceparent: string }) => void;
  /** ACCEPTED -> PROCESSED/REJECTED after this long (default 2000 ms); null keeps orders ACCEPTED */
  processingDelayMs?: number | null;
  /** record requests (default true); off for benchmarks */
  record?: boolean;
  /** orders kept per kind before the oldest are forgotten (default 100,000) */
  maxRecords?: number;
  /** see Hubvendor.setEchoHeader (default: none) */
  echoHeader?: string | null;
}

export interface Hubvendor {
  url: string;
  server: SimServer;
  state: HubState;
  /** moves an order to a status now (reported like a timed transition), for tests */
  setPaymentStatus(paymentOrderId: string, status: PaymentStatus, statusReasonCode?: string | null): void;
  /**
   * `server.addFault({ ...rule, after: true })`: the hub does the work (an order is created), then
   * the answer is lost and replaced by `status`/`body` (default 504) after `delayMs`, or the
   * connection is reset. Lets tests prove that a connector's retry does not duplicate the payment.
   */
  addFaultAfterHandler(rule: FaultRule): ActiveFault;
  /**
   * an echo fault: error answers copy the value of this request header (e.g. authorization) into
   * their messages, as a careless vendor does; null turns it off. Tests prove the engine masks it.
   */
  setEchoHeader(name: string | null): void;
  close(): Promise<void>;
}

export async function startHubvendor(opts: HubvendorOptions = {}): Promise<Hubvendor> {
  const log = opts.log ?? (() => {});
  const state = new HubState(opts.maxRecords ?? 100_000);
  const lifecycle = new PaymentLifecycle({
    state,
    processingDelayMs: opts.processingDelayMs === undefined ? 2000 : opts.processingDelayMs,
    onPaymentStatus: opts.onPaymentStatus,
    log,
  });
  const server = createSimServer({ name: 'hubvendor', port: opts.port, host: opts.host, log, record: opts.record });
  const po = paymentOrderHandlers(state, lifecycle);
  const so = standingOrderHandlers(state);
  let echoHeader = opts.echoHeader?.toLowerCase() ?? null;
  const echoing =
    (h: SimHandler): SimHandler =>
    async (req) => {
      const r = await h(req);
      const v = echoHeader === null ? undefined : req.headers[echoHeader];
      const details = (r.body as { error?: { errorDetails?: { message: string }[] } } | undefined)?.error?.errorDetails;
      if (r.status >= 400 && v !== undefined && details)
        for (const d of details) d.message += ` (request ${echoHeader}: ${String(v)})`;
      return r;
    };

  server
    .route('GET', P.FOREX_EXCHANGE_RATES_PATH, echoing(forexRatesHandler))
    .route('POST', P.PAYMENT_ORDERS_PATH, echoing(po.create))
    .route('GET', P.PAYMENT_ORDER_UPDATE_PATH, echoing(po.get))
    .route('PUT', P.PAYMENT_ORDER_UPDATE_PATH, echoing(po.modify))
    .route('PUT', P.PAYMENT_ORDER_CANCEL_PATH, echoing(po.cancel))
    .route('POST', P.STANDING_ORDERS_PATH, echoing(so.create))
    .route('PUT', P.STANDING_ORDER_CANCEL_PATH, echoing(so.cancel))
    .route('GET', P.BANK_DIRECTORY_BY_BIC_PATH, echoing(byBicHandler))
    .route('GET', P.BANK_DIRECTORY_BY_IBAN_PATH, echoing(byIbanHandler))
    .route('GET', P.BANK_DIRECTORY_BY_BRANCH_CODE_PATH, echoing(byBranchCodeHandler))
    .route('GET', P.IBAN_VALIDATION_PATH, echoing(ibanValidationHandler));

  const url = await server.start();
  return {
    url,
    server,
    state,
    setPaymentStatus(id, status, reason = null) {
      const order = state.paymentOrders.get(id);
      if (!order) throw new Error(`hubvendor: no payment order ${id}`);
      lifecycle.setStatus(order, status, reason);
    },
    addFaultAfterHandler: (rule) => server.addFault({ ...rule, after: true }),
    setEchoHeader(name) {
      echoHeader = name?.toLowerCase() ?? null;
    },
    async close() {
      lifecycle.close();
      await server.close();
    },
  };
}
