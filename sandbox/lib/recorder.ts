// Request recording: tests assert what the engine sent (paths, query, forwarded headers, bodies).
// Entries hold references to objects built for the request anyway, so recording costs one push.

import type { IncomingHttpHeaders } from 'node:http';
import { RingBuffer } from './ring-buffer.ts';

export interface RecordedRequest {
  method: string;
  /** the path as received on the wire (still percent-encoded) */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** parsed JSON, the raw text of a non-JSON body, or undefined when empty */
  body: unknown;
  /** Date.now() when the request arrived */
  time: number;
}

export interface RequestFilter {
  method?: string;
  /** a string matches the path exactly; a RegExp is tested against it */
  path?: string | RegExp;
}

export class RequestRecorder {
  private readonly buffer: RingBuffer<RecordedRequest>;

  constructor(
    capacity: number,
    public enabled: boolean,
  ) {
    this.buffer = new RingBuffer(capacity);
  }

  add(entry: RecordedRequest): void {
    if (this.enabled) this.buffer.push(entry);
  }

  list(filter?: RequestFilter): RecordedRequest[] {
    const all = this.buffer.toArray();
    if (!filter || (filter.method === undefined && filter.path === undefined)) return all;
    const method = filter.method?.toUpperCase();
    const path = filter.path;
    return all.filter(
      (r) =>
        (method === undefined || r.method === method) &&
        (path === undefined || (typeof path === 'string' ? r.path === path : path.test(r.path))),
    );
  }

  clear(): void {
    this.buffer.clear();
  }
}
