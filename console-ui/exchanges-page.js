// Exchanges: the recorder's ring, live over the event stream, searchable by correlation id,
// route and status; one exchange as a timeline of its spans: what each step received and
// produced, each vendor call attempt (request, answer, retry delay), events, the error mapping.
// Traffic an extension makes itself (the sandbox's demo payments) can be hidden from the list.
import { useEffect, useState } from 'preact/hooks';
import { html, pretty, fmtMs, fmtTime } from './html.js';
import { api, live } from './api.js';
import { filterField } from './filters.js';

export function ExchangesPage({ id, query, origins }) {
  return id ? html`<${ExchangeDetail} id=${id} />` : html`<${ExchangeList} query=${query} origins=${origins} />`;
}

/** The origins whose exchanges the list hides, kept in the browser like the operator's name. */
const HIDDEN = 'console.hiddenOrigins';
function hiddenOrigins() {
  try {
    return new Set(JSON.parse(localStorage.getItem(HIDDEN) ?? '[]'));
  } catch {
    return new Set();
  }
}

/**
 * The ring's snapshot with the rows the live stream delivered meanwhile: a live row wins (it is
 * the newer news) unless it still says running where the snapshot already has the end.
 */
export function mergeSnapshot(snapshot, live) {
  const byId = new Map(snapshot.map((r) => [r.id, r]));
  for (const r of live ?? []) {
    const s = byId.get(r.id);
    if (!s || r.outcome !== 'running' || s.outcome === 'running') byId.set(r.id, r);
  }
  return [...byId.values()].sort((a, b) => b.startedAt - a.startedAt).slice(0, 500);
}

function ExchangeList({ query, origins }) {
  const [hidden, setHidden] = useState(hiddenOrigins);
  const toggle = (origin, hide) => {
    const next = new Set(hidden);
    if (hide) next.add(origin);
    else next.delete(origin);
    localStorage.setItem(HIDDEN, JSON.stringify([...next]));
    setHidden(next);
  };
  const [filters, setFilters] = useState({
    correlationId: query.get('correlationId') ?? '',
    route: query.get('route') ?? '',
    status: query.get('status') ?? '',
  });
  const [rows, setRows] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));

  useEffect(() => {
    const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
    setRows(undefined); // rows of the previous filters must not merge into this snapshot
    // the snapshot may answer after live events arrived: merge, never drop what the stream showed
    let current = true; // a snapshot of earlier filters that answers late is dropped
    api(`exchanges?${q}`).then(
      (d) => {
        if (current) {
          setRows((live) => mergeSnapshot(d.exchanges, live));
          setError(undefined);
        }
      },
      (e) => current && setError(e.message),
    );
    // a running exchange has no correlation id or status yet: shown only when no filter needs them
    const matches = (e) =>
      (!filters.route || e.route === filters.route) &&
      (!filters.correlationId || e.correlationId === filters.correlationId) &&
      (!filters.status || e.outcome === filters.status || String(e.status) === filters.status);
    const unsubscribe = live('exchange', (e) => {
      const keep = matches(e);
      setRows((rs) => {
        const rest = (rs ?? []).filter((r) => r.id !== e.id);
        if (!keep) return rest.length === (rs ?? []).length ? rs : rest;
        const at = (rs ?? []).findIndex((r) => r.id === e.id);
        // an exchange that ends keeps its place; a new one goes on top
        return at >= 0 ? rs.map((r) => (r.id === e.id ? e : r)) : [e, ...rest].slice(0, 500);
      });
    });
    return () => {
      current = false;
      unsubscribe();
    };
  }, [filters.correlationId, filters.route, filters.status]);

  const field = (name, label, placeholder) => filterField(filters, setFilters, name, label, placeholder);
  return html`<section class="exchanges">
    <form class="filters" onSubmit=${(e) => e.preventDefault()}>
      ${field('correlationId', 'correlation id', 'any')} ${field('route', 'route', 'any')}
      ${field('status', 'status', 'ok, error, 502…')}
      ${origins.map(
        (o) =>
          html`<label class="switch"
            ><span
              ><input
                type="checkbox"
                name=${`hide-${o.origin}`}
                checked=${hidden.has(o.origin)}
                onChange=${(e) => toggle(o.origin, e.currentTarget.checked)}
              />
              hide ${o.label}</span
            ></label
          >`,
      )}
    </form>
    ${error ? html`<p class="error">${error}</p>` : ''}
    ${
      !rows
        ? html`<p class="muted">Loading…</p>`
        : rows.length === 0
          ? html`<p class="muted">No exchanges yet. Call a route (the sandbox demo sends a payment every 20 s).</p>`
          : html` <table class="list" aria-label="exchanges">
              <thead>
                <tr>
                  <th>time</th>
                  <th>route</th>
                  <th>status</th>
                  <th>duration</th>
                  <th>calls</th>
                  <th>retries</th>
                  <th>events</th>
                  <th>correlation id</th>
                </tr>
              </thead>
              <tbody>
                ${rows
                  .filter((r) => !hidden.has(r.origin))
                  .map(
                    (r) =>
                      html`<tr
                        class=${`exchange ${r.outcome}`}
                        data-origin=${r.origin ?? ''}
                        data-correlation-id=${r.correlationId}
                        data-id=${r.id}
                      >
                        <td>${fmtTime(r.startedAt)}</td>
                        <td>
                          <a href=${`#/exchanges/${r.id}`}>${r.route}</a
                          >${r.origin ? html` <span class="badge origin">${r.origin}</span>` : ''}
                        </td>
                        <td>
                          <span class=${`badge ${r.outcome}`}
                            >${r.outcome === 'running' ? 'running' : (r.status ?? r.outcome)}</span
                          >${r.errorCode ? html` <code>${r.errorCode}</code>` : ''}
                        </td>
                        <td>${fmtMs(r.durationMs)}</td>
                        <td>${r.calls}</td>
                        <td class=${r.retries ? 'bad' : ''}>${r.retries}</td>
                        <td>${r.events}</td>
                        <td>
                          <a href=${`#/exchanges/${r.id}`}><code>${r.correlationId || '…'}</code></a>
                        </td>
                      </tr>`,
                  )}
              </tbody>
            </table>`
    }
  </section>`;
}

function ExchangeDetail({ id }) {
  const [x, setX] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  useEffect(() => {
    api(`exchanges/${encodeURIComponent(id)}`).then(setX, (e) => setError(e.message));
  }, [id]);
  if (error)
    return html`<p class="error">${error}</p>
      <p><a href="#/exchanges">← all exchanges</a></p>`;
  if (!x) return html`<p class="muted">Loading…</p>`;
  const root = x.spans.find((s) => s.role === 'exchange' && !x.spans.some((p) => p.id === s.parentId));
  const mapped = root?.events.find((e) => e.name === 'error.mapped');
  const depth = depths(x.spans);
  // the scale: the exchange, or a span that ended after it (a publication it did not wait for)
  const total = Math.max(x.durationMs ?? 0, ...x.spans.map((s) => s.start + s.durationMs), 0.001);
  const attempts = retryDelays(x.spans);
  return html`<article class="exchange-detail" data-correlation-id=${x.correlationId}>
    <p><a href="#/exchanges">← all exchanges</a></p>
    <h2>
      ${x.route}
      <span class=${`badge ${x.outcome}`}>${x.status ?? x.outcome}</span>
      ${x.errorCode ? html`<code class="code">${x.errorCode}</code>` : ''}
    </h2>
    <p class="muted">
      ${x.name} · ${fmtTime(x.startedAt)} · ${fmtMs(x.durationMs)} · correlation id <code>${x.correlationId}</code> ·
      trace <code>${x.traceId}</code>
    </p>
    ${
      mapped
        ? html`<section class="mapping">
            <h3>Error and its mapping</h3>
            <table>
              <tr>
                <th></th>
                <th>kind</th>
                <th>status</th>
                <th>code</th>
                <th>detail</th>
              </tr>
              ${['from', 'to'].map(
                (p) =>
                  html`<tr>
                    <th>${p === 'from' ? 'raised' : 'answered'}</th>
                    <td>${mapped.attributes[`${p}.kind`]}</td>
                    <td>${mapped.attributes[`${p}.status`]}</td>
                    <td><code>${mapped.attributes[`${p}.code`] ?? ''}</code></td>
                    <td>
                      ${mapped.attributes[`${p}.detail`] ?? ''}${mapped.attributes[`${p}.vendorStatus`] ? ` (vendor ${mapped.attributes[`${p}.vendorStatus`]})` : ''}
                    </td>
                  </tr>`,
              )}
            </table>
          </section>`
        : ''
    }
    <h3>Timeline</h3>
    <ol class="timeline">
      ${x.spans.map(
        (s) =>
          html`<li class=${`span ${s.role}${s.failed ? ' failed' : ''}`} data-role=${s.role}>
            <details>
              <summary>
                <span class="name" data-depth=${depth.get(s.id) ?? 0}
                  >${'\u00a0\u00a0\u00a0'.repeat(depth.get(s.id) ?? 0)}${label(s)}</span
                >
                <span class="attempt"
                  >${s.role === 'call' || s.role === 'publish' ? html`attempt ${Number(s.attributes['http.request.resend_count'] ?? 0) + 1}${attempts.has(s.id) ? html`, after ${fmtMs(attempts.get(s.id))}` : ''}` : ''}</span
                >
                <span class="status">${s.attributes['http.response.status_code'] ?? ''}</span>
                <span class="bar"><${Bar} start=${s.start} width=${s.durationMs} total=${total} /></span>
                <span class="dur">${fmtMs(s.durationMs)}</span>
              </summary>
              ${s.events.map(
                (e) =>
                  html`<div class="event">
                    <h4>${e.name} <span class="muted">+${fmtMs(e.at)}</span></h4>
                    ${Object.entries(e.attributes).map(
                      ([k, v]) =>
                        html`<div class="attr" data-attr=${ATTR_NAMES[k] ?? k}>
                          <span class="muted">${ATTR_NAMES[k] ?? k}</span>
                          <pre>${pretty(v)}</pre>
                        </div>`,
                    )}
                  </div>`,
              )}
              <div class="attrs muted">
                ${Object.entries(s.attributes).map(([k, v]) => html`<span>${k}=${String(v)} </span>`)}
              </div>
            </details>
          </li>`,
      )}
    </ol>
  </article>`;
}

/**
 * A bar placed by CSSOM (the page's CSP allows no inline style attributes), kept inside its track:
 * at least 0.5% wide (a 20 µs step stays visible), moved left rather than drawn past the end.
 */
function Bar({ start, width, total }) {
  const ref = (el) => {
    if (!el) return;
    const w = Math.max(0.5, Math.min(100, (width / total) * 100));
    el.style.marginLeft = `${Math.max(0, Math.min(100 - w, (start / total) * 100))}%`;
    el.style.width = `${w}%`;
  };
  return html`<i ref=${ref}></i>`;
}

/** What the span events' attributes are called on the page (the masked texts tracing-detail.ts adds). */
const ATTR_NAMES = {
  'engine.body': 'body',
  'engine.vars': 'vars',
  'engine.headers': 'headers',
  'engine.query': 'query',
  'engine.params': 'path parameters',
  'url.path': 'path',
};

function label(s) {
  if (s.role === 'step') return `${s.attributes['engine.step.path'] ?? s.name}`;
  if (s.role === 'publish') return `${s.name} (${s.attributes['cloudevents.event_type'] ?? 'event'})`;
  return s.name;
}

function depths(spans) {
  const byId = new Map(spans.map((s) => [s.id, s]));
  const out = new Map();
  const d = (s) => {
    if (out.has(s.id)) return out.get(s.id);
    const p = s.parentId && byId.get(s.parentId);
    const v = p ? d(p) + 1 : 0;
    out.set(s.id, v);
    return v;
  };
  spans.forEach(d);
  return out;
}

/** For each retried call attempt: the pause since the previous attempt of the same step ended. */
function retryDelays(spans) {
  const out = new Map();
  const last = new Map();
  for (const s of spans.filter((x) => x.role === 'call' || x.role === 'publish')) {
    const prev = last.get(s.parentId);
    if (prev && Number(s.attributes['http.request.resend_count'] ?? s.attributes['engine.attempt'] ?? 0) > 0)
      out.set(s.id, Math.max(0, s.start - (prev.start + prev.durationMs)));
    last.set(s.parentId, s);
  }
  return out;
}
