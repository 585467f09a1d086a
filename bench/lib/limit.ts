// What the hand-written limits of the benchmarks share: the cheapest way to make a vendor call
// with undici (a Pool's `dispatch` with a handler that collects the body as text, no Readable
// stream, no AbortSignal) and to answer (one JSON string with its content-length, so node:http
// writes head and body at once, without chunked framing).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool, type Dispatcher } from 'undici';

export interface Answer {
  status: number;
  text: string;
}

/** A keep-alive pool to one vendor origin, sized like the engine's (200 connections). */
export function vendorPool(origin: string): Pool {
  return new Pool(origin, { connections: 200, keepAliveTimeout: 30_000, pipelining: 1, connect: { timeout: 5000 } });
}

/** One call: the status and the body as text; a connection failure rejects. */
export function call(
  pool: Pool,
  o: { method: Dispatcher.HttpMethod; path: string; headers: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    pool.dispatch({ ...o, headersTimeout: 16_000, bodyTimeout: 10_000 }, {
      onConnect() {},
      onHeaders(s: number) {
        status = s;
        return true;
      },
      onData(c: Buffer) {
        chunks.push(c);
        return true;
      },
      onComplete() {
        resolve({
          status,
          text: chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'),
        });
      },
      onError: reject,
    } as Dispatcher.DispatchHandler);
  });
}

/** Reads the request body and calls `done` with it as text. */
export function readText(req: IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => done(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
}

/** A JSON answer with its content-length. */
export function reply(res: ServerResponse, status: number, payload: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(payload) }).end(payload);
}
