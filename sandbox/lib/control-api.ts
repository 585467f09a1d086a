// The `/__sandbox/*` control API: read/clear recorded requests, add/list/clear faults over HTTP,
// for tests written in another process or language. It is never recorded nor faulted, so a test
// can always undo what it injected.

import type { FaultStore } from './faults.ts';
import { FaultRuleError, parseFaultRule } from './faults.ts';
import type { RequestRecorder } from './recorder.ts';

export const CONTROL_PREFIX = '/__sandbox/';

export interface ControlAnswer {
  status: number;
  body?: unknown;
}

export function handleControl(
  method: string,
  path: string,
  query: Record<string, string>,
  body: unknown,
  recorder: RequestRecorder,
  faults: FaultStore,
): ControlAnswer {
  if (path === '/__sandbox/requests') {
    if (method === 'GET') {
      let re: RegExp | undefined;
      if (query.pathMatch !== undefined) {
        try {
          re = new RegExp(query.pathMatch);
        } catch (e) {
          return { status: 400, body: { error: `pathMatch: ${(e as Error).message}` } };
        }
      }
      return { status: 200, body: { requests: recorder.list({ method: query.method, path: re ?? query.path }) } };
    }
    if (method === 'DELETE') {
      recorder.clear();
      return { status: 204 };
    }
    return { status: 405, body: { error: 'use GET or DELETE' } };
  }
  if (path === '/__sandbox/faults') {
    if (method === 'GET') return { status: 200, body: { faults: faults.list() } };
    if (method === 'DELETE') {
      faults.clear();
      return { status: 204 };
    }
    if (method === 'POST') {
      const rules = Array.isArray(body) ? body : [body];
      try {
        // check every rule first so a bad one leaves none of the batch installed
        const added = rules.map(parseFaultRule).map((r) => faults.add(r));
        return { status: 201, body: { faults: added } };
      } catch (e) {
        if (e instanceof FaultRuleError) return { status: 400, body: { error: e.message } };
        throw e;
      }
    }
    return { status: 405, body: { error: 'use GET, POST or DELETE' } };
  }
  const faultId = /^\/__sandbox\/faults\/([^/]+)$/.exec(path)?.[1];
  if (faultId !== undefined && method === 'DELETE') {
    return faults.remove(faultId) ? { status: 204 } : { status: 404, body: { error: `no fault ${faultId}` } };
  }
  return { status: 404, body: { error: `unknown sandbox control path ${path}` } };
}
