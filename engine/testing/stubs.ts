// Vendor stubs of route tests: real HTTP servers on 127.0.0.1, one per to-http target name, that
// answer from a script (status, body, headers, delay, dropped connection) and record what they got.

import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Answer } from '../dsl/route-test-schema.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** the status answered (0: connection dropped) */
  status: number;
}

function parseBody(text: string, type: string | undefined): unknown {
  if (!text) return undefined;
  if ((type ?? '').includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      /* kept as text */
    }
  }
  return text;
}

function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of search) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

export class StubServer {
  readonly requests: RecordedRequest[] = [];
  private script: Answer[] = [];
  private server: Server;
  private sockets = new Set<Socket>();
  private timers = new Set<NodeJS.Timeout>();
  origin = '';

  constructor(
    readonly target: string,
    private fallback: Answer,
  ) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A new case: the answers to give, nothing recorded. */
  reset(script: Answer[] | undefined): void {
    this.script = script ?? [];
    this.requests.length = 0;
  }

  /** The case scripted this target (or it has a default answer of its own, as the event hub). */
  get scripted(): boolean {
    return this.script.length > 0;
  }

  private answerFor(n: number): Answer {
    if (!this.script.length) return this.fallback;
    return this.script[Math.min(n, this.script.length - 1)];
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://stub');
      const answer = this.answerFor(this.requests.length);
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: u.pathname,
        query: queryOf(u.searchParams),
        headers: req.headers,
        body: parseBody(Buffer.concat(chunks).toString('utf8'), req.headers['content-type']),
        status: answer.fail ? 0 : (answer.status ?? 200),
      };
      this.requests.push(rec);
      const send = () => {
        if (answer.fail === 'reset') {
          req.socket.destroy();
          return;
        }
        const body =
          answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        const headers: Record<string, string> = {};
        if (answer.body !== undefined)
          headers['content-type'] = typeof answer.body === 'string' ? 'text/plain' : 'application/json';
        for (const [k, v] of Object.entries(answer.headers ?? {})) headers[k.toLowerCase()] = String(v);
        headers['content-length'] = String(Buffer.byteLength(body));
        res.writeHead(rec.status, headers).end(body);
      };
      if (!answer.delay) {
        send();
        return;
      }
      const t = setTimeout(() => {
        this.timers.delete(t);
        send();
      }, answer.delay);
      this.timers.add(t);
    });
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}

/** What a target the case did not script answers: a failure of the case, never a vendor's `200 {}`. */
const NO_STUB: Answer = { status: 502, body: { title: 'route test: no stub for this target' } };

/** The servers of one engine: named stubs, the event hub sink and the catch-all for unstubbed targets. */
export class StubSet {
  readonly stubs = new Map<string, StubServer>();
  /** to-http calls to targets the case did not script, in order (answered 502) */
  readonly unstubbed: string[] = [];
  private catchAll!: StubServer;

  /**
   * `targets`: the names some case of the engine scripts or expects calls of. Each gets a server
   * that records its requests; a case that scripts it not gets the catch-all's 502 from it.
   */
  static async start(targets: Iterable<string>): Promise<StubSet> {
    const set = new StubSet();
    set.catchAll = await new StubServer('(no stub)', NO_STUB).listen();
    await set.add('eventhub', { status: 202 });
    for (const t of targets) if (!set.stubs.has(t)) await set.add(t, NO_STUB);
    return set;
  }

  private async add(target: string, fallback: Answer): Promise<void> {
    this.stubs.set(target, await new StubServer(target, fallback).listen());
  }

  get eventhub(): StubServer {
    return this.stubs.get('eventhub')!;
  }
  get fallbackOrigin(): string {
    return this.catchAll.origin;
  }

  reset(scripts: Record<string, Answer[]>): void {
    this.unstubbed.length = 0;
    this.catchAll.reset(undefined);
    for (const [name, s] of this.stubs) s.reset(scripts[name]);
  }

  /**
   * The HttpClients redirect: a target the case scripted goes to its stub; any other one fails
   * the case (its server, when it has one, still counts the request for `calls`), or keeps its
   * origin when simulators stand behind it. Another case's script is never this case's answer.
   */
  redirect(passThrough: boolean): (target: string, origin: string) => string | undefined {
    return (target) => {
      const s = this.stubs.get(target);
      if (s?.scripted) return s.origin;
      if (passThrough) return undefined;
      this.unstubbed.push(target);
      return (s ?? this.catchAll).origin;
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.stubs.values(), this.catchAll].map((s) => s.close()));
  }
}
