// A GET of a small JSON document (an identity provider's discovery document or JWKS) on
// node:http/node:https. Not the global fetch: its first call loads Node's bundled undici and
// WHATWG streams (about 15 ms of a start-up) for two requests per key rotation.

import { request as httpRequest, type IncomingMessage } from 'node:http';

/** Largest document read: a JWKS of a few dozen keys is tens of KiB. */
const MAX_BYTES = 1 << 20;

export type GetJson = (url: string, timeoutMs: number) => Promise<unknown>;

export const getJson: GetJson = async (url, timeoutMs) => {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`GET ${url}: only http and https URLs are supported`);
  const request = u.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(u, { method: 'GET', headers: { accept: 'application/json' } }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        res.resume();
        reject(new Error(`GET ${url}: HTTP ${status}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BYTES) {
          req.destroy(new Error(`GET ${url}: the document is larger than ${MAX_BYTES} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new Error(`GET ${url}: the answer is not JSON`));
        }
      });
      res.on('error', reject);
    });
    // the whole exchange, not only the socket's idle time
    const timer = setTimeout(() => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end();
  });
};
