// The console's calls to the engine (/console/api/*) and its one live connection (Server-Sent
// Events at /console/api/stream): each exchange as it starts and ends, route metrics, and the
// clients (their breakers) at each breaker transition.

/**
 * GET (or POST/DELETE with a JSON body) a console API path; throws the problem's detail, with the
 * answer's status as the error's `status`.
 * @param {string} path
 * @param {{ method?: string, body?: unknown, headers?: Record<string, string> }} [init]
 * @returns {Promise<any>} the answer's JSON
 */
export async function api(path, { method = 'GET', body, headers = {} } = {}) {
  const res = await fetch(`/console/api/${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined; // a proxy's HTML error page: the status says enough
  }
  if (!res.ok)
    throw Object.assign(new Error(data?.detail ?? data?.error ?? `${res.status} ${res.statusText}`), {
      status: res.status,
    });
  return data;
}

/** Sent on window after a replay or discard from this page: the navigation's open count reloads. */
export const FAILED_CHANGED = 'console:failed-changed';
export const failedChanged = () => dispatchEvent(new Event(FAILED_CHANGED));

const listeners = { exchange: new Set(), metrics: new Set(), clients: new Set(), status: new Set() };
let source;

/** Subscribes to a live event kind ('exchange', 'metrics', 'clients', 'status'); returns the unsubscribe. */
export function live(kind, fn) {
  connect();
  listeners[kind].add(fn);
  return () => listeners[kind].delete(fn);
}

function connect() {
  if (source) return;
  source = new EventSource('/console/api/stream');
  const status = (s) => {
    for (const fn of listeners.status) fn(s);
  };
  source.onopen = () => status('live');
  source.onerror = () => status('reconnecting');
  for (const kind of ['exchange', 'metrics', 'clients']) {
    source.addEventListener(kind, (e) => {
      const data = JSON.parse(e.data);
      for (const fn of listeners[kind]) fn(data);
    });
  }
}
