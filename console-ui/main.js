// The engine console: a hash-routed page (#/routes, #/exchanges, #/failed, #/clients, #/sandbox, #/gateway, #/audit)
// over the engine's /console/api, with live updates from its event stream. Bundled by
// console-ui/build.mjs.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api, live, FAILED_CHANGED } from './api.js';
import { RoutesPage } from './routes-page.js';
import { ExchangesPage } from './exchanges-page.js';
import { FailedPage } from './failed-page.js';
import { SandboxPage } from './sandbox-page.js';
import { GatewayPage } from './gateway-page.js';
import { AuditPage } from './audit-page.js';
import { ClientsPage } from './clients-page.js';
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
  const open = useOpenFailed();
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
    ['failed', 'Failed'],
    ['clients', 'Clients'],
    ...(overview?.panels ?? []).map((p) => [p.id, p.title]),
    ['gateway', 'Gateway'],
    ['audit', 'Audit'],
  ];
  const tokens = (overview?.panels ?? []).some((p) => p.id === 'sandbox');
  let body;
  if (where.page === 'exchanges')
    body = html`<${ExchangesPage}
      id=${where.arg}
      query=${where.query}
      origins=${overview?.origins ?? []}
      key=${location.hash}
    />`;
  else if (where.page === 'failed')
    body = html`<${FailedPage} id=${where.arg} query=${where.query} key=${location.hash} />`;
  else if (where.page === 'clients') body = html`<${ClientsPage} />`;
  else if (where.page === 'sandbox') body = html`<${SandboxPage} />`;
  else if (where.page === 'audit') body = html`<${AuditPage} query=${where.query} key=${location.hash} />`;
  else if (where.page === 'gateway') body = html`<${GatewayPage} selected=${where.arg} tokens=${tokens} />`;
  else body = html`<${RoutesPage} selected=${where.arg} query=${where.query} />`;
  return html`<header>
      <h1>Integration engine</h1>
      <nav>
        ${pages.map(
          ([id, title]) =>
            html`<a href=${`#/${id}`} class=${where.page === id ? 'active' : ''} data-page=${id}
              >${title}${id === 'failed' && open ? html` <span class="badge error count" title="open failed exchanges">${open}</span>` : ''}</a
            >`,
        )}
      </nav>
      <span class="env"
        >${overview ? html`env <b>${overview.environment}</b> · ${overview.routes} routes · keeps ${overview.exchanges} exchanges` : ''}</span
      >
      <span class=${`live ${status}`} title="live updates">${status}</span>
    </header>
    <main data-page=${where.page}>${body}</main>`;
}

/**
 * How many failed exchanges are open, for the navigation: asked at start, when the page changes,
 * after a replay or discard, and after exchanges end in error (once per burst). Nothing when the
 * durable store cannot answer: the Failed page says why.
 */
function useOpenFailed() {
  const [open, setOpen] = useState(0);
  useEffect(() => {
    let timer;
    const ask = () =>
      api('failed?status=open&limit=1').then(
        (d) => setOpen(d.open ?? 0),
        () => setOpen(0),
      );
    const soon = () => {
      clearTimeout(timer);
      timer = setTimeout(ask, 1000);
    };
    ask();
    addEventListener('hashchange', ask);
    addEventListener(FAILED_CHANGED, ask);
    const off = live('exchange', (e) => e.outcome === 'error' && soon());
    return () => {
      clearTimeout(timer);
      removeEventListener('hashchange', ask);
      removeEventListener(FAILED_CHANGED, ask);
      off();
    };
  }, []);
  return open;
}

render(html`<${App} />`, /** @type {HTMLElement} */ (document.getElementById('app')));
