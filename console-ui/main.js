// The engine console: a hash-routed page (#/routes, #/exchanges, #/sandbox, #/gateway) over the
// engine's /console/api, with live updates from its event stream. Bundled by console-ui/build.mjs.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api, live } from './api.js';
import { RoutesPage } from './routes-page.js';
import { ExchangesPage } from './exchanges-page.js';
import { SandboxPage } from './sandbox-page.js';
import { GatewayPage } from './gateway-page.js';
import './console.css';

/** `#/page/arg?query` -> { page, arg, query } */
function parseHash() {
  const [path, q] = (location.hash.replace(/^#\/?/, '') || 'routes').split('?');
  const [page, ...rest] = path.split('/');
  return {
    page,
    arg: rest.length ? decodeURIComponent(rest.join('/')) : undefined,
    query: new URLSearchParams(q ?? ''),
  };
}

function App() {
  const [where, setWhere] = useState(parseHash());
  const [overview, setOverview] = useState(/** @type {any} */ (undefined));
  const [status, setStatus] = useState('connecting');
  useEffect(() => {
    const on = () => setWhere(parseHash());
    addEventListener('hashchange', on);
    on(); // the hash may have changed between the first render and this effect
    api('overview').then(setOverview, () => {});
    const off = live('status', setStatus);
    return () => {
      removeEventListener('hashchange', on);
      off();
    };
  }, []);
  const pages = [
    ['routes', 'Routes'],
    ['exchanges', 'Exchanges'],
    ...(overview?.panels ?? []).map((p) => [p.id, p.title]),
    ['gateway', 'Gateway'],
  ];
  const tokens = (overview?.panels ?? []).some((p) => p.id === 'sandbox');
  let body;
  if (where.page === 'exchanges')
    body = html`<${ExchangesPage} id=${where.arg} query=${where.query} key=${location.hash} />`;
  else if (where.page === 'sandbox') body = html`<${SandboxPage} />`;
  else if (where.page === 'gateway') body = html`<${GatewayPage} selected=${where.arg} tokens=${tokens} />`;
  else body = html`<${RoutesPage} selected=${where.arg} />`;
  return html`<header>
      <h1>Integration engine</h1>
      <nav>
        ${pages.map(([id, title]) => html`<a href=${`#/${id}`} class=${where.page === id ? 'active' : ''} data-page=${id}>${title}</a>`)}
      </nav>
      <span class="env"
        >${overview ? html`env <b>${overview.environment}</b> · ${overview.routes} routes · keeps ${overview.exchanges} exchanges` : ''}</span
      >
      <span class=${`live ${status}`} title="live updates">${status}</span>
    </header>
    <main data-page=${where.page}>${body}</main>`;
}

render(html`<${App} />`, /** @type {HTMLElement} */ (document.getElementById('app')));
