// A small project for the reload tests, a vendor stub that can hold a call until released, and a
// logger that keeps its lines.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpProject } from '../helpers/tmp-project.ts';

export interface Vendor {
  url: string;
  /** the next call waits until the returned function is called */
  holdNext(): () => void;
  calls: number;
  close(): Promise<void>;
}

/** Answers `{"n": <call number>}` to every call, after a hold when one is armed. */
export async function startVendor(): Promise<Vendor> {
  let hold: Promise<void> | undefined;
  const v: Vendor = {
    url: '',
    calls: 0,
    holdNext() {
      let release!: () => void;
      hold = new Promise<void>((r) => {
        release = r;
      });
      return release;
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const n = ++v.calls;
    const wait = hold;
    hold = undefined;
    req.resume();
    req.on('end', () => {
      void (wait ?? Promise.resolve()).then(() => {
        const body = JSON.stringify({ n });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  v.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  v.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return v;
}

/** An HTTP route answering `expression` (JSONata) at POST /<id>, after a call to the vendor. */
export function httpRoute(id: string, expression: string, extra = ''): string {
  return `id: ${id}
values: demo
from:
  http:
    path: /${id}
steps:
${extra}  - to-http:
      name: vendor
      method: GET
      url: "{{vendor.url}}/${id}"
      into: vars.vendor
  - transform:
      expression: ${JSON.stringify(expression)}
`;
}

export function reloadProject(
  vendorUrl: string,
  files: Record<string, string> = {},
): { root: string; write(name: string, text: string): void; remove(name: string): void } {
  const root = tmpProject({
    'values/demo.values.yaml': `vendor.url: ${vendorUrl}\ngreeting: hello\n`,
    'routes/hello.yaml': httpRoute('hello', `{"greeting": "{{greeting}}", "version": 1}`),
    ...files,
  });
  return {
    root,
    write: (name, text) => writeFileSync(join(root, name), text),
    remove: (name) => rmSync(join(root, name)),
  };
}

/** A route at POST /<id> calling the vendor through the client `hub`, answering the vendor's call number. */
export const viaClient = (id: string) => `id: ${id}
from:
  http:
    path: /${id}
steps:
  - to-http:
      client: hub
      method: GET
      path: /${id}
      into: vars.vendor
  - transform:
      expression: '{"n": vars.vendor.n}'
`;
