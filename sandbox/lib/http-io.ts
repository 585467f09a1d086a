// Reading request bodies and writing responses with node:http, without a framework.

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

export class BodyTooLargeError extends Error {}

const EMPTY = Buffer.alloc(0);

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume(); // drain, so the 413 can still be written on this connection
        reject(new BodyTooLargeError(`request body exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(chunks.length === 0 ? EMPTY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)),
    );
    req.on('error', reject);
  });
}

/** JSON is parsed when the body is non-empty and its content type is absent or a JSON type. */
export function wantsJson(contentType: string | undefined): boolean {
  return contentType === undefined || contentType.includes('json');
}

export type HeaderValues = Record<string, string | number | string[]>;

/**
 * Writes a response. A string or Buffer body is sent as is (text/plain unless a content-type is
 * given); anything else is JSON. Header names are lower-cased so a caller's header replaces ours.
 */
export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: HeaderValues,
  extra?: HeaderValues,
): void {
  if (res.headersSent || res.destroyed) return;
  const h: OutgoingHttpHeaders = {};
  let payload: string | Buffer | undefined;
  if (body !== undefined) {
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      payload = body;
      h['content-type'] = 'text/plain; charset=utf-8';
    } else {
      payload = JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
  }
  if (headers) for (const k in headers) h[k.toLowerCase()] = headers[k];
  if (extra) for (const k in extra) h[k.toLowerCase()] = extra[k];
  h['content-length'] = payload === undefined ? 0 : Buffer.byteLength(payload);
  res.writeHead(status, h);
  res.end(payload);
}
