// The event hub producer sink: where the engine publishes CloudEvents. It accepts structured mode
// (`application/cloudevents+json`, one event) and batched mode (`application/cloudevents-batch+json`,
// an array), validates, keeps the last `maxEvents`, and answers 202. Fault injection from the sim
// server applies, so tests can make it answer 503 for a while and check nothing is lost.

import { createSimServer, type SimLog, type SimRequest, type SimResponse, type SimServer } from '../lib/sim-server.ts';
import { RingBuffer } from '../lib/ring-buffer.ts';
import { type CloudEvent, checkCloudEvent, type EventProblem } from './cloudevents.ts';

export type { CloudEvent } from './cloudevents.ts';

export const EVENTS_PATH = '/events';
export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json';
export const CLOUDEVENTS_BATCH_CONTENT_TYPE = 'application/cloudevents-batch+json';

export interface EventFilter {
  type?: string;
  topic?: string;
  source?: string;
  id?: string;
  /** one event per source + id (the CloudEvents identity): the first received */
  distinct?: boolean;
}

export interface EventHubOptions {
  port?: number;
  host?: string;
  log?: SimLog;
  /** events kept (default 10,000; the oldest are dropped) */
  maxEvents?: number;
  /** record raw requests too (default true) */
  record?: boolean;
}

export interface EventHub {
  url: string;
  server: SimServer;
  events(filter?: EventFilter): CloudEvent[];
  clear(): void;
  /** resolves with the first stored or arriving event matching, or rejects after timeoutMs (default 5000) */
  waitFor(predicate: (e: CloudEvent) => boolean, timeoutMs?: number): Promise<CloudEvent>;
  close(): Promise<void>;
}

function problem(status: number, title: string, detail: string, errors?: EventProblem[]): SimResponse {
  return {
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: { type: 'about:blank', title, status, detail, ...(errors && { errors }) },
  };
}

function filterEvents(all: CloudEvent[], f: EventFilter = {}): CloudEvent[] {
  let out = all.filter(
    (e) =>
      (f.type === undefined || e.type === f.type) &&
      (f.topic === undefined || e.topic === f.topic) &&
      (f.source === undefined || e.source === f.source) &&
      (f.id === undefined || e.id === f.id),
  );
  if (f.distinct) {
    const seen = new Set<string>();
    out = out.filter((e) => {
      const key = `${e.source}\u0000${e.id}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  return out;
}

export async function startEventHub(opts: EventHubOptions = {}): Promise<EventHub> {
  const store = new RingBuffer<CloudEvent>(opts.maxEvents ?? 10_000);
  const waiters = new Set<{ predicate: (e: CloudEvent) => boolean; resolve: (e: CloudEvent) => void }>();
  const server = createSimServer({
    name: 'eventhub',
    port: opts.port,
    host: opts.host,
    log: opts.log,
    record: opts.record,
  });

  const publish = (req: SimRequest): SimResponse => {
    const ct = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const batch = ct === CLOUDEVENTS_BATCH_CONTENT_TYPE;
    if (!batch && ct !== CLOUDEVENTS_CONTENT_TYPE) {
      return problem(
        415,
        'Unsupported Media Type',
        `content-type must be ${CLOUDEVENTS_CONTENT_TYPE} or ${CLOUDEVENTS_BATCH_CONTENT_TYPE}, got '${ct}'`,
      );
    }
    if (req.body === undefined) return problem(400, 'Bad Request', 'the request has no JSON body');
    if (batch && !Array.isArray(req.body)) return problem(400, 'Bad Request', 'a batch must be a JSON array of events');
    const events = batch ? (req.body as unknown[]) : [req.body];
    const errors = events.flatMap((e, i) => checkCloudEvent(e, batch ? `/${i}` : ''));
    // all or nothing: a rejected batch stores none of its events, so a retry cannot duplicate
    if (errors.length > 0) return problem(400, 'Bad Request', 'invalid CloudEvent', errors);
    for (const e of events as CloudEvent[]) {
      store.push(e);
      for (const w of waiters) if (w.predicate(e)) w.resolve(e);
    }
    return { status: 202, body: { accepted: events.length } };
  };

  server
    .route('POST', EVENTS_PATH, publish)
    .route('GET', EVENTS_PATH, (req) => ({
      status: 200,
      body: {
        events: filterEvents(store.toArray(), {
          type: req.query.type,
          topic: req.query.topic,
          source: req.query.source,
          id: req.query.id,
          distinct: req.query.distinct === 'true',
        }),
      },
    }))
    .route('DELETE', EVENTS_PATH, () => {
      store.clear();
      return { status: 204 };
    });

  const url = await server.start();
  return {
    url,
    server,
    events: (filter) => filterEvents(store.toArray(), filter),
    clear: () => store.clear(),
    waitFor(predicate, timeoutMs = 5000) {
      const found = store.toArray().find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise<CloudEvent>((resolve, reject) => {
        const w = {
          predicate,
          resolve: (e: CloudEvent) => {
            clearTimeout(timer);
            waiters.delete(w);
            resolve(e);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`eventhub: no matching event within ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
        waiters.add(w);
      });
    },
    close: () => server.close(),
  };
}
