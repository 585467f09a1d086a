// Gateway: the subscriptions and the tools each may use, every tool's schemas and approval
// state, and a try-it form that calls a tool through /mcp (offering the keys an extension
// publishes, the sandbox's demo keys) and shows the result first, linked to the exchange of the
// route it ran, then the JSON-RPC exchange. A tool that asks the user to confirm (confirm:
// required) shows what is to be confirmed with Confirm and Refuse, as an MCP client shows its user
// the gateway's input request; the answer is the same call again (the engine's try-it API).
import { useEffect, useState } from 'preact/hooks';
import { html, pretty } from './html.js';
import { api } from './api.js';

export function GatewayPage({ selected, tokens }) {
  const [g, setG] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  useEffect(() => {
    api('gateway').then(setG, (e) => setError(e.message));
  }, []);
  if (error) return html`<p class="error">${error}</p>`;
  if (!g) return html`<p class="muted">Loading…</p>`;
  if (!g.tools.length) return html`<p class="muted">No gateway tools are loaded (routes/gateway/*.yaml).</p>`;
  return html`<div class="gateway">
    <p class="muted">
      Environment
      <code>${g.env}</code
      >${g.available ? ' · serving POST /mcp' : ' · /mcp is not served (no approved tools or no gateway settings)'}
    </p>
    <section>
      <h2>Subscriptions</h2>
      <table class="list">
        <thead>
          <tr>
            <th>subscription</th>
            <th>keys</th>
            <th>tools it may use</th>
          </tr>
        </thead>
        <tbody>
          ${g.subscriptions.map(
            (s) =>
              html`<tr>
                <td>${s.name}</td>
                <td>${s.keys}</td>
                <td>${s.tools.map((t) => html`<span class="chip">${t}</span> `)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section>
      <h2>Try a tool</h2>
      <${TryIt} tools=${g.tools.filter((t) => t.served)} initial=${selected} tokens=${tokens} keys=${g.tryKeys ?? []} />
    </section>
    <section>
      <h2>Tools</h2>
      ${g.tools.map(
        (t) =>
          html`<details class="tool" open=${t.name === selected} data-tool=${t.name}>
            <summary>
              <b>${t.name}</b>
              <span class=${`badge ${t.approval}`}>${t.approval}</span>
              ${t.security === 'bearer' ? html`<span class="badge">bearer token</span>` : ''}
              ${t.confirm ? html`<span class="badge warn">user confirms</span>` : ''}
              <span class="muted"> → route <a href=${`#/routes/${encodeURIComponent(t.route)}`}>${t.route}</a></span>
            </summary>
            <p>${t.description}</p>
            <p class="muted"><code>${t.file}</code></p>
            <h4>input schema</h4>
            <pre>${pretty(t.inputSchema)}</pre>
            ${
              t.outputSchema
                ? html`<h4>output schema</h4>
                    <pre>${pretty(t.outputSchema)}</pre>`
                : ''
            }
          </details>`,
      )}
    </section>
  </div>`;
}

/** Arguments to start from: each required property's example, default or first enum value. */
function exampleArgs(schema) {
  const out = {};
  for (const [k, p] of Object.entries(schema?.properties ?? {})) {
    const v = p.examples?.[0] ?? p.default ?? p.enum?.[0] ?? p.const;
    if (v !== undefined) out[k] = v;
    else if ((schema.required ?? []).includes(k))
      out[k] = p.type === 'number' || p.type === 'integer' ? 0 : p.type === 'boolean' ? false : '';
  }
  return out;
}

function TryIt({ tools, initial, tokens, keys }) {
  const first = tools.find((t) => t.name === initial) ?? tools[0];
  const [form, setForm] = useState({
    key: keys[0]?.key ?? '',
    token: '',
    tool: first?.name ?? '',
    args: pretty(exampleArgs(first?.inputSchema)),
  });
  const [out, setOut] = useState(/** @type {any} */ (undefined));
  const [busy, setBusy] = useState(false);
  if (!tools.length) return html`<p class="muted">No tool is served in this environment.</p>`;
  const set = (k) => (e) => {
    const v = e.currentTarget.value;
    if (k === 'tool')
      setForm({ ...form, tool: v, args: pretty(exampleArgs(tools.find((t) => t.name === v)?.inputSchema)) });
    else setForm({ ...form, [k]: v });
  };
  const getToken = () =>
    api('panels/sandbox/token', { method: 'POST', body: { sub: 'alice' } }).then(
      (r) => setForm((f) => ({ ...f, token: r.token })),
      (e) => setOut({ error: e.message }),
    );
  const submit = async (e) => {
    e.preventDefault();
    let args;
    try {
      args = JSON.parse(form.args || '{}');
    } catch {
      setOut({ error: 'arguments: not valid JSON' });
      return;
    }
    setBusy(true);
    const sent = { key: form.key, token: form.token || undefined, tool: form.tool, arguments: args };
    try {
      // what was sent is kept: a confirmation answers exactly these arguments
      setOut({ ...(await api('gateway/try', { method: 'POST', body: sent })), sent });
    } catch (err) {
      setOut({ error: /** @type {Error} */ (err).message });
    }
    setBusy(false);
  };
  /** The person's answer to the confirmation asked: the same call with it, shown after the first. */
  const decide = async (decision, requestState) => {
    setBusy(true);
    try {
      const more = await api('gateway/try', {
        method: 'POST',
        body: { ...out.sent, confirmation: { requestState, decision } },
      });
      setOut({ steps: [...out.steps, ...more.steps], sent: out.sent });
    } catch (err) {
      setOut({ ...out, error: /** @type {Error} */ (err).message });
    }
    setBusy(false);
  };
  const lastStep = out?.steps?.[out.steps.length - 1];
  const asked = lastStep?.requestState ? lastStep.response.body?.result : undefined;
  return html`<form class="try-it" onSubmit=${submit}>
      <label
        >subscription key
        <input
          name="key"
          value=${form.key}
          onInput=${set('key')}
          autocomplete="off"
          list="try-keys"
          placeholder="a subscription key"
          required
      /></label>
      <datalist id="try-keys">${keys.map((k) => html`<option value=${k.key}>${k.label}</option>`)}</datalist>
      ${keys.map(
        (k) =>
          html`<button
            type="button"
            class="secondary offered-key"
            onClick=${() => setForm((f) => ({ ...f, key: k.key }))}
          >
            ${k.label}
          </button>`,
      )}
      <label
        >bearer token (optional) <input name="token" value=${form.token} onInput=${set('token')} autocomplete="off"
      /></label>
      ${tokens ? html`<button type="button" onClick=${getToken}>Sandbox token for alice</button>` : ''}
      <label
        >tool
        <select name="tool" value=${form.tool} onChange=${set('tool')}>
          ${tools.map((t) => html`<option value=${t.name}>${t.name}</option>`)}
        </select></label
      >
      <label class="wide"
        >arguments (JSON) <textarea name="arguments" rows="5" value=${form.args} onInput=${set('args')}></textarea>
      </label>
      <button type="submit" disabled=${busy}>Call through /mcp</button>
    </form>
    ${out?.error ? html`<p class="error">${out.error}</p>` : ''}
    ${
      asked?.resultType === 'input_required'
        ? html`<${TryConfirm} result=${asked} requestState=${lastStep.requestState} busy=${busy} onDecide=${decide} />`
        : out?.steps
          ? html`<${TryResult} steps=${out.steps} />`
          : ''
    }
    ${
      out?.steps
        ? html`<ol class="rpc">
            ${out.steps.map(
              (s) =>
                html`<li class="rpc-step" data-method=${s.method}>
                  <h4>
                    ${s.method}
                    <span class=${`badge ${s.response.status < 400 ? 'ok' : 'error'}`}>${s.response.status}</span>
                  </h4>
                  <div class="pair">
                    <div>
                      <h5>request</h5>
                      <pre>${pretty(s.request)}</pre>
                    </div>
                    <div>
                      <h5>response</h5>
                      <pre>${pretty(s.response)}</pre>
                    </div>
                  </div>
                </li>`,
            )}
          </ol>`
        : ''
    }`;
}

/**
 * What the call came to, before how: the tool's result (or the JSON-RPC error, or the refusal of
 * the first request that failed) and a link to the exchange of the route it ran (its correlation id).
 */
function TryResult({ steps }) {
  const last = steps[steps.length - 1];
  const body = last.response.body;
  const result = body?.result;
  const failed = last.response.status >= 400 || body?.error || result?.isError;
  const shown = result ? (result.structuredContent ?? textOf(result.content)) : (body?.error ?? body);
  const correlationId = last.method === 'tools/call' ? last.response.headers['x-correlation-id'] : undefined;
  return html`<section class="try-result" data-outcome=${failed ? 'error' : 'ok'}>
    <h4>
      ${last.method === 'tools/call' ? 'result' : `${last.method} refused`}
      <span class=${`badge ${failed ? 'error' : 'ok'}`}>${failed ? 'error' : 'ok'}</span>
      ${correlationId ? html`<a class="exchange-link" href=${`#/exchanges/${encodeURIComponent(correlationId)}`}>its exchange →</a>` : ''}
    </h4>
    <pre>${pretty(shown)}</pre>
  </section>`;
}

/**
 * The confirmation the gateway asked for (2026-07-28 input_required, a form elicitation): its
 * message (what is confirmed: amount, masked accounts, date), then Confirm or Refuse.
 */
function TryConfirm({ result, requestState, busy, onDecide }) {
  const ask = result.inputRequests?.confirm?.params ?? {};
  const [title, ...lines] = String(ask.message ?? '').split('\n');
  return html`<section class="try-confirm">
    <h4>${title || 'Confirm'} <span class="badge warn">confirmation asked</span></h4>
    <p class="muted">Nothing was done yet: the gateway asks the signed-in user to confirm these exact arguments.</p>
    <ul class="confirm-lines">
      ${lines.map((l) => html`<li>${l}</li>`)}
    </ul>
    <div class="actions">
      <button type="button" data-decision="confirm" disabled=${busy} onClick=${() => onDecide('confirm', requestState)}>
        Confirm
      </button>
      <button
        type="button"
        class="secondary"
        data-decision="refuse"
        disabled=${busy}
        onClick=${() => onDecide('refuse', requestState)}
      >
        Refuse
      </button>
    </div>
  </section>`;
}

/** A tool result's text content, as JSON when it is. */
function textOf(content) {
  const text = (content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  return text;
}
