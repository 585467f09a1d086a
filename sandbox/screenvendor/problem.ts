// Problem-JSON errors (application/problem+json) and the x-api-key check on every vendor call.

import { randomUUID } from 'node:crypto';
import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import { API_KEY_HEADER } from './model.ts';

export class SimProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
  ) {
    super(title);
  }
}

function problem(status: number, title: string, detail?: string): SimResponse {
  return {
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: {
      identifier: randomUUID(),
      status,
      timestamp: new Date().toISOString(),
      title,
      ...(detail ? { detail } : {}),
    },
  };
}

type Handler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

/** A thrown SimProblem answered as problem JSON. */
export const problems =
  (h: Handler) =>
  async (req: SimRequest): Promise<SimResponse> => {
    try {
      return await h(req);
    } catch (e) {
      if (e instanceof SimProblem) return problem(e.status, e.title, e.detail);
      throw e;
    }
  };

/** A vendor call: the API key first, then the handler; problems answered as problem JSON. */
export const guarded = (apiKey: string, h: Handler) =>
  problems((req) => {
    if (req.headers[API_KEY_HEADER] !== apiKey) throw new SimProblem(401, 'Unauthorized', 'missing or invalid API key');
    return h(req);
  });

export const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
export const now = () => new Date().toISOString();
