// Clients: each client profile's circuit breaker (closed, open, half-open; since when, why it last
// opened, when the next probe goes), bulkhead (calls under way and waiting) and retry budget (calls,
// retries and refused retries in its window). A breaker transition comes over the live stream; the
// counts reload when exchanges end (once per burst), never on a timer.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html, fmtMs, fmtTime } from './html.js';
import { api, live } from './api.js';

/** A client's breaker as a badge: `label: open since 12:01:03`, coloured by state. */
export function BreakerBadge({ client, state, since, lastCause, label = true }) {
  const text = state ? `${state}${state === 'closed' ? '' : ` since ${fmtTime(Date.parse(since))}`}` : 'no breaker';
  return html`<span
    class=${`badge breaker ${state ?? 'none'}`}
    data-client=${client}
    data-state=${state ?? 'none'}
    title=${lastCause ? `last opened by: ${lastCause}` : ''}
    >${label ? `${client}: ` : ''}${text}</span
  >`;
}

/** route id -> its clients' breakers, from the clients list (each names the routes calling it). */
export function clientsByRoute(clients) {
  const out = {};
  for (const c of clients)
    for (const r of c.routes)
      (out[r] ??= []).push({
        client: c.client,
        state: c.breaker?.state,
        since: c.breaker?.since,
        lastCause: c.breaker?.lastCause,
      });
  return out;
}

export function ClientsPage() {
  const [clients, setClients] = useState(/** @type {any[] | undefined} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  const [version, setVersion] = useState(0);
  const [now, setNow] = useState(Date.now());
  /** transitions pushed over the live stream so far */
  const pushes = useRef(0);

  // retryAfterMs counts from the answer; the page counts down from when it came
  const take = (list) => {
    const at = Date.now();
    setNow(at);
    setClients(list.map((c) => ({ ...c, probeAt: c.breaker ? at + c.breaker.retryAfterMs : undefined })));
  };
  useEffect(() => {
    let timer;
    const offExchange = live('exchange', () => {
      clearTimeout(timer);
      timer = setTimeout(() => setVersion((v) => v + 1), 250);
    });
    const offClients = live('clients', (d) => {
      pushes.current++;
      take(d.clients);
    });
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => {
      offExchange();
      offClients();
      clearTimeout(timer);
      clearInterval(tick);
    };
  }, []);
  useEffect(() => {
    const before = pushes.current;
    api('clients').then(
      (d) => {
        setError(undefined);
        // a transition pushed while this answer was on its way is newer than the answer
        if (pushes.current === before) take(d.clients);
      },
      (e) => setError(e.message),
    );
  }, [version]);

  if (error && !clients) return html`<p class="error">${error}</p>`;
  if (!clients) return html`<p class="muted">Loading clients…</p>`;
  if (!clients.length) return html`<p class="muted">No route calls a client profile.</p>`;
  return html`<div class="clients">
    <p class="muted">
      Each client profile's guards, shared by every route calling it: the circuit-breaker, bulkhead and retry-budget of
      its connector.yaml or of the template it extends.
    </p>
    <table class="list clients">
      <thead>
        <tr>
          <th>client</th>
          <th>breaker</th>
          <th>since</th>
          <th>last cause</th>
          <th>next probe</th>
          <th>bulkhead</th>
          <th>retry budget</th>
          <th>routes</th>
        </tr>
      </thead>
      <tbody>
        ${clients.map((c) => html`<${ClientRow} c=${c} now=${now} />`)}
      </tbody>
    </table>
  </div>`;
}

function ClientRow({ c, now }) {
  const b = c.breaker;
  const h = c.bulkhead;
  const u = c.budget;
  const wait = b && b.state === 'open' ? Math.max(0, c.probeAt - now) : undefined;
  return html`<tr class="client" data-client=${c.client} data-state=${b?.state ?? 'none'}>
    <td>
      <b>${c.client}</b>
      <div class="muted"><code>${c.file}</code></div>
    </td>
    <td>
      <${BreakerBadge}
        client=${c.client}
        state=${b?.state}
        since=${b?.since}
        lastCause=${b?.lastCause}
        label=${false}
      />
      ${b ? html`<div class="muted settings">${breakerSettings(b.settings)}</div>` : ''}
    </td>
    <td class="since">${b ? fmtTime(Date.parse(b.since)) : '–'}</td>
    <td class="cause">${b?.lastCause ?? html`<span class="muted">–</span>`}</td>
    <td class="probe">
      ${
        wait === undefined
          ? b?.state === 'half-open'
            ? 'the next call probes'
            : '–'
          : wait > 0
            ? `in ${Math.ceil(wait / 1000)} s`
            : 'now'
      }
    </td>
    <td class="bulkhead">
      ${
        h
          ? html`<div class="active">${`${h.active} of ${h.settings.maxConcurrent} active`}</div>
              <div class="queued">${`${h.queued} of ${h.settings.maxQueue} queued`}</div>`
          : html`<span class="muted">none</span>`
      }
    </td>
    <td class="budget">
      <div class="window">${`${u.calls} calls, ${u.retries} retries in ${fmtWindow(u.settings.window)}`}</div>
      <div class=${u.refused ? 'refused bad' : 'refused'}>${`${u.refused} retries refused`}</div>
    </td>
    <td>${c.routes.map((r) => html`<a class="chip" href=${`#/routes/${encodeURIComponent(r)}`}>${r}</a> `)}</td>
  </tr>`;
}

const fmtWindow = (ms) => (ms % 1000 ? fmtMs(ms) : `${ms / 1000} s`);

const breakerSettings = (s) =>
  `opens after ${s.failures} failures in a row${
    s.ratio === undefined ? '' : ` or ${Math.round(s.ratio * 100)}% of ${s.minCalls}+ calls in ${fmtWindow(s.window)}`
  }; probe after ${fmtWindow(s.halfOpenAfter)}`;
