// Failed: the failed exchanges the durable store keeps (inputs that failed for good), newest first,
// filtered by route, code, status and time; bulk replay or discard of what the filter matches, with
// a dry-run count in the confirmation; the audit history. One record: failed-record.js.
import { useEffect, useState } from 'preact/hooks';
import { html, fmtDateTime } from './html.js';
import { api, live, failedChanged } from './api.js';
import { Operator, operatorHeaders, operatorName } from './operator.js';
import { FailedHistory } from './failed-history.js';
import { FailedRecord } from './failed-record.js';
import { filterChoice, filterField, sinceOf, timeWindows } from './filters.js';

const STATUSES = ['open', 'replaying', 'replayed', 'discarded'];
/** `any` is said, not left out: the API lists the open records when no status is given */
const statusOf = (s) => (STATUSES.includes(s) || s === 'any' ? s : 'open');
const WINDOWS = timeWindows(['15m', '1h', '24h', '7d', '30d']);
/** most records listed; the total says how many match */
const LIMIT = 200;

export function FailedPage({ id, query }) {
  return id ? html`<${FailedRecord} id=${id} />` : html`<${FailedList} query=${query} />`;
}

function FailedList({ query }) {
  const [filters, setFilters] = useState({
    route: query.get('route') ?? '',
    code: query.get('code') ?? '',
    status: statusOf(query.get('status')),
    since: WINDOWS.some(([w]) => w === query.get('since')) ? (query.get('since') ?? '') : '',
  });
  const [data, setData] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  const [operator, setOperator] = useState(operatorName());
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((v) => v + 1);

  useEffect(() => {
    let timer;
    // an exchange that ends in error may have been recorded as failed: one reload per burst
    const off = live('exchange', (e) => {
      if (e.outcome === 'error') {
        clearTimeout(timer);
        timer = setTimeout(reload, 500);
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  useEffect(() => {
    const q = new URLSearchParams({ limit: String(LIMIT) });
    for (const k of /** @type {const} */ (['route', 'code', 'status'])) if (filters[k]) q.set(k, filters[k]);
    const since = sinceOf(filters.since);
    if (since) q.set('since', since);
    let current = true; // an answer for earlier filters that comes late is dropped
    api(`failed?${q}`).then(
      (d) => {
        if (!current) return;
        setData(d);
        setError(undefined);
      },
      (e) => current && setError(e.message),
    );
    return () => {
      current = false;
    };
  }, [filters.route, filters.code, filters.status, filters.since, version]);

  const field = (name, label) => filterField(filters, setFilters, name, label);
  const choice = (name, label, options) => filterChoice(filters, setFilters, name, label, options);
  const records = data?.records ?? [];
  return html`<section class="failed">
    <${Operator} name=${operator} onChange=${setOperator} />
    <form class="filters" onSubmit=${(e) => e.preventDefault()}>
      ${field('route', 'route')} ${field('code', 'code')}
      ${choice('status', 'status', [...STATUSES.map((s) => [s, s]), ['any', 'any']])}
      ${choice('since', 'failed', WINDOWS)}
      <button type="button" class="secondary" onClick=${reload}>Refresh</button>
    </form>
    ${
      filters.status === 'open' || filters.status === 'any'
        ? html`<${Bulk}
            filters=${filters}
            operator=${operator}
            onDone=${() => {
              reload();
              failedChanged();
            }}
          />`
        : ''
    }
    ${error ? html`<p class="error">${error}</p>` : ''}
    ${
      !data
        ? error
          ? ''
          : html`<p class="muted">Loading…</p>`
        : html`<p class="muted summary">
              ${`${records.length < data.total ? `the newest ${records.length} of ` : ''}${data.total} matching · `}<b>${data.open}</b>${' open in all'}
            </p>
            ${
              records.length === 0
                ? html`<p class="muted">
                    No failed exchange matches. An input that fails for good (an AMQP message rejected, a webhook's
                    event refused, a cron run that fails) is kept here.
                  </p>`
                : html`<table class="list" aria-label="failed exchanges">
                    <thead>
                      <tr>
                        <th>last failed</th>
                        <th>route</th>
                        <th>source</th>
                        <th>status</th>
                        <th>code</th>
                        <th>attempts</th>
                        <th>detail</th>
                        <th>correlation id</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${records.map(
                        (r) =>
                          html`<tr class=${`failed-row ${r.status}`} data-id=${r.id} data-route=${r.route}>
                            <td><a href=${`#/failed/${encodeURIComponent(r.id)}`}>${fmtDateTime(r.lastAt)}</a></td>
                            <td><a href=${`#/failed/${encodeURIComponent(r.id)}`}>${r.route}</a></td>
                            <td>${r.source}</td>
                            <td><span class=${`badge ${r.status}`}>${r.status}</span></td>
                            <td><code>${r.code}</code></td>
                            <td>${r.attempts}</td>
                            <td class="detail">${r.detail ?? ''}</td>
                            <td>
                              ${r.correlationId ? html`<a href=${`#/exchanges?correlationId=${encodeURIComponent(r.correlationId)}`}><code>${r.correlationId}</code></a>` : ''}
                            </td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>`
            }`
    }
    <${FailedHistory} version=${version} />
  </section>`;
}

/** "route x, code y, last hour" for a confirmation; the open records of the filter */
function describe(filters) {
  const parts = [
    filters.route && `route ${filters.route}`,
    filters.code && `code ${filters.code}`,
    filters.since && WINDOWS.find(([w]) => w === filters.since)?.[1],
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no filter: every open record';
}

/** Replay all matching / Discard all matching: a dry run counts first, the confirmation shows it. */
function Bulk({ filters, operator, onDone }) {
  const [pending, setPending] = useState(/** @type {any} */ (undefined));
  const [message, setMessage] = useState(/** @type {any} */ (undefined));
  const [busy, setBusy] = useState(false);
  const post = (action, body) => api(`failed/${action}`, { method: 'POST', body, headers: operatorHeaders(operator) });
  const ask = async (action) => {
    // the window is fixed now, so the records acted on are the ones counted
    const body = {
      route: filters.route || undefined,
      code: filters.code || undefined,
      since: sinceOf(filters.since),
    };
    // no filter at all is every open record: the API wants that said
    const all = !body.route && !body.code && !body.since;
    if (all) Object.assign(body, { allMatching: true });
    setBusy(true);
    setMessage(undefined);
    try {
      const r = await post(action, { ...body, dryRun: true });
      setPending({ action, body, matched: r.matched, what: describe(filters) });
    } catch (e) {
      setMessage({ error: /** @type {Error} */ (e).message });
    }
    setBusy(false);
  };
  const run = async () => {
    const { action, body } = pending;
    setBusy(true);
    try {
      const r = await post(action, body);
      setMessage({ ok: outcomeText(action, r) });
    } catch (e) {
      setMessage({ error: /** @type {Error} */ (e).message });
    }
    setPending(undefined);
    setBusy(false);
    onDone();
  };
  const n = (k) => `${k} open record${k === 1 ? '' : 's'}`;
  return html`<div class="bulk">
    <button type="button" name="replay-all" disabled=${busy || !operator || !!pending} onClick=${() => ask('replay')}>
      Replay all matching…
    </button>
    <button
      type="button"
      name="discard-all"
      class="danger"
      disabled=${busy || !operator || !!pending}
      onClick=${() => ask('discard')}
    >
      Discard all matching…
    </button>
    ${operator ? '' : html`<span class="muted">give your name above first</span>`}
    ${
      pending
        ? html`<div
            class="confirm note"
            role="alertdialog"
            data-action=${pending.action}
            data-matched=${pending.matched}
          >
            ${
              pending.matched === 0
                ? html`<span>No open record matches (${pending.what}).</span>
                    <button type="button" class="secondary" onClick=${() => setPending(undefined)}>OK</button>`
                : html`<span
                      >${pending.action === 'replay' ? 'Replay ' : 'Discard '}<b class="count">${n(pending.matched)}</b
                      >${` (${pending.what})? ${pending.action === 'replay' ? 'Each runs the route as it is now on its original input.' : 'Discarded records can no longer be replayed.'}`}</span
                    >
                    <button
                      type="button"
                      name="confirm"
                      class=${pending.action === 'discard' ? 'danger' : ''}
                      disabled=${busy}
                      onClick=${run}
                    >
                      ${pending.action === 'replay' ? 'Replay' : 'Discard'} ${pending.matched}
                    </button>
                    <button type="button" class="secondary" onClick=${() => setPending(undefined)}>Cancel</button>`
            }
          </div>`
        : ''
    }
    ${message ? html`<div class=${message.error ? 'error note' : 'ok note'} role="status">${message.error ?? message.ok}</div>` : ''}
  </div>`;
}

/** `Replayed 18 of 20; 1 failed again and stays open; 1 was taken by someone else meanwhile.` */
function outcomeText(action, r) {
  const refused = r.refused ?? 0;
  const others = refused
    ? `; ${refused} ${refused === 1 ? 'was' : 'were'} no longer open (taken or settled meanwhile)`
    : '';
  if (action === 'discard') return `Discarded ${r.matched - refused} of ${r.matched}${others}.`;
  const failed = r.failed ? `; ${r.failed} failed again and ${r.failed === 1 ? 'stays' : 'stay'} open` : '';
  return `Replayed ${r.replayed} of ${r.matched}${failed}${others}.`;
}
