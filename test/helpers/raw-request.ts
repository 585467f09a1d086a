// One HTTP request with the headers exactly as given (`Host` and `Origin` included, which fetch
// would not let a test choose), to an engine's listener; answers the status and the parsed body.

import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<RawAnswer> {
  const u = new URL(url);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port,
        method,
        path,
        headers: {
          ...(data === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => {
            text += c;
          })
          .on('end', () => {
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              /* not JSON: the text */
            }
            resolve({ status: res.statusCode!, body: parsed, headers: res.headers });
          });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
