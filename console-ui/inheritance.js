// A route's "Inherits" section: what it takes from elsewhere, the facts `engine routes --explain`
// prints (engine/dsl/route-inheritance.ts): connector id and values file and where each is said,
// each client profile after extends with where every setting is written and the values line
// behind a placeholder (secrets masked by the engine), and the on-exception handlers it runs.
import { html } from './html.js';

const whence = (from, own) => (from ? html`from the connector document <code>${from}</code>` : own);

export function Inheritance({ inherits }) {
  if (!inherits) return '';
  const { connector, values, clients, onException } = inherits;
  return html`<section class="inherits" aria-label="what the route inherits">
    <h3>Inherits</h3>
    <table class="values">
      <tbody>
        <tr data-fact="connector">
          <th>connector</th>
          <td>${connector ? html`<code>${connector.id}</code>` : html`<span class="muted">none</span>`}</td>
          <td class="muted">
            ${connector ? whence(connector.from, connector.property ? html`values property <code>${connector.property}</code>` : 'named by the route') : ''}
          </td>
        </tr>
        <tr data-fact="values">
          <th>values</th>
          <td>
            ${values ? html`<code>${values.name}</code> <span class="muted">(${values.file})</span>` : html`<span class="muted">none</span>`}
          </td>
          <td class="muted">${values ? whence(values.from, 'named by the route') : ''}</td>
        </tr>
      </tbody>
    </table>
    ${clients.map(
      (c) =>
        html`<div class="client" data-client=${c.name}>
          <h4>
            client
            <code>${c.name}</code>
            ${c.file ? html`<span class="muted">(${c.file})</span>` : html`<span class="bad">not found</span>`}
          </h4>
          ${c.extends.length ? html`<p class="muted">extends ${c.extends.map((e, i) => html`${i ? ', which extends ' : ''}<code>${e.name}</code> (${e.file})`)}</p>` : ''}
          ${
            c.sources.length
              ? html`<table class="values">
                  <thead>
                    <tr>
                      <th>setting</th>
                      <th>value</th>
                      <th>written at</th>
                      <th>from values</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${c.sources.map(
                      (s) =>
                        html`<tr data-setting=${s.setting}>
                          <td><code>${s.setting}</code></td>
                          <td><code>${s.value}</code></td>
                          <td class="muted">${s.at} (${s.profile})</td>
                          <td class="muted">
                            ${s.properties.map((p) => html`<div><code>{{${p.key}}}</code> ${p.at}${p.origin !== 'values' && p.origin !== 'none' ? ` (${p.origin})` : ''}</div>`)}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
              : ''
          }
        </div>`,
    )}
    <div class="handlers" data-from=${onException.from ?? 'route'}>
      <h4>
        on-exception
        <span class="muted">${onException.handlers.length ? whence(onException.from, "the route's own") : ''}</span>
      </h4>
      ${
        onException.handlers.length
          ? html`<ul>
              ${onException.handlers.map((h) => html`<li><code>when ${h.when}</code>${h.template ? html` → <code>${h.template}</code>` : ''}${h.steps ? ` (${h.steps} step(s))` : ''} <span class="muted">${h.at}</span></li>`)}
            </ul>`
          : html`<p class="muted">none</p>`
      }
    </div>
  </section>`;
}
