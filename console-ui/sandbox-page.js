// Sandbox (the panel the sandbox extension contributes): recorded requests per simulator, the
// event hub sink's events by type and topic, fault injection (with a one-click outage per simulator:
// watch its client's breaker open on the Clients page), webhook triggers. It reloads when
// an exchange ends (the live stream), never on a timer.
import { useEffect, useState } from 'preact/hooks';
import { html, pretty, fmtTime } from './html.js';
import { api, live } from './api.js';

const P = 'panels/sandbox';

export function SandboxPage() {
  const [state, setState] = useState(/** @type {any} */ (undefined));
  const [sim, setSim] = useState('hubvendor');
  const [requests, setRequests] = useState(/** @type {any[]} */ ([]));
  const [events, setEvents] = useState(/** @type {any[]} */ ([]));
  const [filter, setFilter] = useState({ type: '', topic: '' });
  const [message, setMessage] = useState(/** @type {any} */ (undefined));
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let timer;
    // many exchanges end at once under load: one reload per burst
    const off = live('exchange', (e) => {
      if (e.outcome !== 'running') {
        clearTimeout(timer);
        timer = setTimeout(() => setVersion((v) => v + 1), 250);
      }
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  useEffect(() => {
    api(P).then(setState, (e) => setMessage({ error: e.message }));
  }, [version]);
  useEffect(() => {
    api(`${P}/requests?sim=${encodeURIComponent(sim)}`).then(
      (d) => setRequests(d.requests),
      () => setRequests([]),
    );
  }, [sim, version]);
  useEffect(() => {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v));
    api(`${P}/events?${q}`).then(
      (d) => setEvents(d.events),
      () => setEvents([]),
    );
  }, [filter.type, filter.topic, version]);

  const act = (path, body, method = 'POST') =>
    api(`${P}/${path}`, { method, body }).then(
      (r) => {
        setMessage({ ok: r });
        setVersion((v) => v + 1);
      },
      (e) => setMessage({ error: e.message }),
    );

  if (!state) return message?.error ? html`<p class="error">${message.error}</p>` : html`<p class="muted">Loading…</p>`;
  return html`<div class="sandbox">
    ${message ? html`<div class=${message.error ? 'error note' : 'ok note'} role="status">${message.error ?? html`<pre>${pretty(message.ok ?? 'done')}</pre>`}</div>` : ''}
    <section>
      <h2>Fault injection</h2>
      <div class="outage" aria-label="vendor outage">
        <b>Vendor outage</b>
        ${state.simulators.map(
          (s) =>
            html`<button
              type="button"
              class="secondary outage-start"
              data-sim=${s.name}
              title=${`${s.name} answers 503 to every request until the outage ends`}
              onClick=${() => act('faults', { sim: s.name, rule: { status: 503 } })}
            >
              ${s.name}: 503 to everything
            </button>`,
        )}
        ${state.simulators
          .filter((s) => s.faults.length)
          .map(
            (s) =>
              html`<button
                type="button"
                class="secondary outage-end"
                data-sim=${s.name}
                title=${`remove every fault of ${s.name}`}
                onClick=${() => act(`faults?sim=${s.name}`, undefined, 'DELETE')}
              >
                end ${s.name} faults
              </button>`,
          )}
      </div>
      <${FaultForm} sims=${state.simulators.map((s) => s.name)} onAdd=${(b) => act('faults', b)} />
      <table class="list faults">
        <thead>
          <tr>
            <th>simulator</th>
            <th>rule</th>
            <th>hits</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${state.simulators.flatMap((s) =>
            s.faults.map(
              (f) =>
                html`<tr class="fault" data-sim=${s.name}>
                  <td>${s.name}</td>
                  <td><code>${ruleText(f)}</code></td>
                  <td>${f.hits}</td>
                  <td>
                    <button type="button" onClick=${() => act(`faults?sim=${s.name}&id=${f.id}`, undefined, 'DELETE')}>
                      remove
                    </button>
                  </td>
                </tr>`,
            ),
          )}
        </tbody>
      </table>
    </section>
    <section>
      <h2>Webhook triggers</h2>
      <${Trigger}
        label="Screening list update"
        field="customer"
        options=${state.screening?.customers ?? []}
        empty="no monitored customer yet: screen one first"
        onFire=${(v) => act('triggers/screening-list-update', { customer: v })}
      />
      <${Trigger}
        label="ACH batch status (next lifecycle step)"
        field="batchId"
        options=${(state.ach?.batches ?? []).map((b) => b.batchId)}
        empty="no batch submitted yet"
        describe=${(id) => {
          const b = state.ach.batches.find((x) => x.batchId === id);
          return b ? `${b.reference} · ${b.status}` : id;
        }}
        onFire=${(v) => act('triggers/ach-status', { batchId: v })}
      />
    </section>
    <section>
      <h2>Recorded requests</h2>
      <div class="tabs">
        ${state.simulators.map((s) => html`<button type="button" class=${s.name === sim ? 'active' : ''} onClick=${() => setSim(s.name)}>${s.name} <span class="muted">${s.requests}</span></button>`)}
      </div>
      <table class="list requests">
        <thead>
          <tr>
            <th>time</th>
            <th>method</th>
            <th>path</th>
            <th>correlation id</th>
          </tr>
        </thead>
        <tbody>
          ${requests.map(
            (r) =>
              html`<tr>
                <td>${fmtTime(r.time)}</td>
                <td>${r.method}</td>
                <td>
                  <details>
                    <summary><code>${r.path}</code></summary>
                    <pre>${pretty({ query: r.query, headers: r.headers, body: r.body })}</pre>
                  </details>
                </td>
                <td>
                  ${r.headers['x-correlation-id'] ? html`<a href=${`#/exchanges?correlationId=${encodeURIComponent(r.headers['x-correlation-id'])}`}><code>${r.headers['x-correlation-id']}</code></a>` : ''}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section>
      <h2>Event hub sink <span class="muted">${state.events.count}</span></h2>
      <form class="filters" onSubmit=${(e) => e.preventDefault()}>
        <label
          >type
          <select
            name="type"
            value=${filter.type}
            onChange=${(e) => setFilter({ ...filter, type: e.currentTarget.value })}
          >
            <option value="">any</option>
            ${state.events.types.map((t) => html`<option value=${t}>${t}</option>`)}
          </select></label
        >
        <label
          >topic
          <select
            name="topic"
            value=${filter.topic}
            onChange=${(e) => setFilter({ ...filter, topic: e.currentTarget.value })}
          >
            <option value="">any</option>
            ${state.events.topics.map((t) => html`<option value=${t}>${t}</option>`)}
          </select></label
        >
      </form>
      <table class="list events">
        <thead>
          <tr>
            <th>time</th>
            <th>type</th>
            <th>topic</th>
            <th>correlation id</th>
          </tr>
        </thead>
        <tbody>
          ${events.map(
            (e) =>
              html`<tr class="event-row">
                <td>${e.time ? fmtTime(Date.parse(e.time)) : ''}</td>
                <td>
                  <details>
                    <summary>${e.type}</summary>
                    <pre>${pretty(e)}</pre>
                  </details>
                </td>
                <td>${e.topic ?? ''}</td>
                <td>
                  ${e.correlationid ? html`<a href=${`#/exchanges?correlationId=${encodeURIComponent(e.correlationid)}`}><code>${e.correlationid}</code></a>` : ''}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
  </div>`;
}

const ruleText = (f) =>
  Object.entries(f)
    .filter(([k]) => k !== 'id' && k !== 'hits')
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
    .join(' ');

function FaultForm({ sims, onAdd }) {
  const [f, setF] = useState({
    sim: 'hubvendor',
    method: '',
    path: '',
    status: '503',
    times: '1',
    delayMs: '',
    reset: false,
  });
  const set = (k) => (e) =>
    setF({ ...f, [k]: e.currentTarget.type === 'checkbox' ? e.currentTarget.checked : e.currentTarget.value });
  const submit = (e) => {
    e.preventDefault();
    const rule = {};
    if (f.method) rule.method = f.method;
    if (f.path) rule.path = f.path;
    if (f.status && !f.reset) rule.status = Number(f.status);
    if (f.times) rule.times = Number(f.times);
    if (f.delayMs) rule.delayMs = Number(f.delayMs);
    if (f.reset) rule.reset = true;
    onAdd({ sim: f.sim, rule });
  };
  return html`<form class="fault-form" onSubmit=${submit}>
    <label
      >simulator
      <select name="sim" value=${f.sim} onChange=${set('sim')}>
        ${sims.map((s) => html`<option value=${s}>${s}</option>`)}
      </select></label
    >
    <label>method <input name="method" value=${f.method} onInput=${set('method')} placeholder="any" size="6" /></label>
    <label
      >path (regex) <input name="path" value=${f.path} onInput=${set('path')} placeholder="any, e.g. ^/v1/forex"
    /></label>
    <label>status <input name="status" value=${f.status} onInput=${set('status')} size="4" /></label>
    <label>times <input name="times" value=${f.times} onInput=${set('times')} size="3" placeholder="∞" /></label>
    <label>delay ms <input name="delayMs" value=${f.delayMs} onInput=${set('delayMs')} size="6" /></label>
    <label><input type="checkbox" name="reset" checked=${f.reset} onChange=${set('reset')} /> reset connection</label>
    <button type="submit">Add fault</button>
  </form>`;
}

function Trigger({ label, options, empty, onFire, describe = (x) => x, field }) {
  const [v, setV] = useState('');
  const value = v || options[options.length - 1] || '';
  return html`<form
    class="trigger"
    data-trigger=${field}
    onSubmit=${(e) => {
      e.preventDefault();
      if (value) onFire(value);
    }}
  >
    <b>${label}</b>
    ${
      options.length
        ? html`<select name=${field} value=${value} onChange=${(e) => setV(e.currentTarget.value)}>
              ${options.map((o) => html`<option value=${o}>${describe(o)}</option>`)}
            </select>
            <button type="submit">Send</button>`
        : html`<span class="muted">${empty}</span>`
    }
  </form>`;
}
