// The page where a person confirms or refuses a payment an agent of an earlier MCP revision asked
// for (url-confirmation.ts), at GET and POST /mcp/confirmations/{id}:
// - GET as HTML: a page with no data in it; its script reads the confirmation as JSON with the
//   person's bearer token (one an authenticating proxy in front adds, else one the person pastes)
//   and offers Confirm and Refuse.
// - GET as JSON (`Accept: application/json`): the confirmation, for its own user only.
// - POST `{"decision":"confirm"|"refuse"}` (application/json): the decision.
// The person is authenticated by a bearer token of the same user (`sub`) the call was made for,
// verified as /mcp verifies tokens; the id alone grants nothing, and another user's id answers as an
// unknown one. The token comes in a header, never a cookie, and the POST must be JSON (a cross-site
// form cannot send it without a CORS preflight, which is not granted), so no other site can make a
// browser confirm. The page may not be framed.

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { GatewayAudit } from './audit-hook.ts';
import type { ClientIp } from './client-ip.ts';
import type { GatewaySettings } from './config.ts';
import { TokenError, type TokenVerifier, type VerifiedToken } from './jwt.ts';
import type { Limiter } from './rate-limit.ts';
import { StoreUnavailableError } from '../store/store.ts';
import type { PendingConfirmation, UrlConfirmations } from './url-confirmation.ts';

export interface ConfirmPageDeps {
  confirmations: UrlConfirmations;
  verifier: TokenVerifier;
  limiter: Limiter;
  ip: ClientIp;
  settings: GatewaySettings;
  audit: GatewayAudit;
  log: Logger;
}

const SCRIPT = `
const id = location.pathname.split('/').pop();
const $ = (s) => document.querySelector(s);
const KEY = 'gateway-confirm-token';
function show(el) { for (const s of ['#signin', '#details', '#done']) $(s).hidden = s !== el; }
function say(text) { $('#status').textContent = text; }
async function call(method, body) {
  const token = sessionStorage.getItem(KEY);
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = 'Bearer ' + token;
  if (body) headers['content-type'] = 'application/json';
  const r = await fetch(location.pathname, { method, headers, body: body && JSON.stringify(body) });
  return { status: r.status, body: await r.json().catch(() => ({})) };
}
async function load() {
  const r = await call('GET');
  if (r.status === 401) { show('#signin'); say(r.body.detail || 'Sign in to see this confirmation.'); return; }
  if (r.status !== 200) { show('#done'); say(r.body.detail || 'This confirmation cannot be shown.'); return; }
  const c = r.body;
  $('#title').textContent = c.title;
  const ul = $('#lines'); ul.textContent = '';
  for (const l of c.lines) { const li = document.createElement('li'); li.textContent = l; ul.append(li); }
  $('#expires').textContent = new Date(c.expiresAt).toLocaleString();
  show(c.state === 'pending' ? '#details' : '#done');
  say(c.state === 'pending' ? '' : 'Already ' + c.state + '.');
}
async function decide(decision) {
  const r = await call('POST', { decision });
  show('#done');
  say(r.body.detail || r.body.message || 'Done.');
}
$('#signin').addEventListener('submit', (ev) => {
  ev.preventDefault();
  sessionStorage.setItem(KEY, $('#token').value.trim());
  load();
});
$('#confirm').addEventListener('click', () => decide('confirm'));
$('#refuse').addEventListener('click', () => decide('refuse'));
load();
`;

const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Confirm a payment</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
li{margin:.3rem 0}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.5rem}
#confirm{background:#0a6;color:#fff;border:0}#refuse{background:#eee;border:1px solid #999}
textarea{width:100%;height:6rem}</style></head>
<body>
<h1>Confirm a payment</h1>
<p>An agent asks to act on your accounts. Nothing happens unless you confirm here.</p>
<p id="status" role="status"></p>
<form id="signin" hidden>
<label for="token">Your access token</label><textarea id="token" autocomplete="off" spellcheck="false"></textarea>
<button type="submit">Sign in</button></form>
<section id="details" hidden><h2 id="title"></h2><ul id="lines"></ul>
<p>Answer before <span id="expires"></span>.</p>
<button id="confirm" type="button">Confirm</button><button id="refuse" type="button">Refuse</button></section>
<section id="done" hidden></section>
<script>${SCRIPT}</script>
</body></html>`;

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // only this page's own script, no framing (clickjacking of the Confirm button), no referrer
  'content-security-policy': `default-src 'none'; script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'`,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export class ConfirmPage {
  constructor(private d: ConfirmPageDeps) {}

  async handle(req: IncomingMessage, res: ServerResponse, body: string, correlationId: string): Promise<void> {
    const id = decodeURIComponent((req.url ?? '').split('?')[0].split('/').pop() ?? '');
    const wantsJson = req.method === 'POST' || /application\/json/i.test(req.headers.accept ?? '');
    if (req.method === 'GET' && !wantsJson) {
      res.writeHead(200, { ...PAGE_HEADERS, 'content-length': String(Buffer.byteLength(HTML)) }).end(HTML);
      return;
    }
    const send = (status: number, payload: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(payload);
      res
        .writeHead(status, {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          'x-correlation-id': correlationId,
          'content-length': String(Buffer.byteLength(text)),
          ...headers,
        })
        .end(text);
    };
    try {
      const who = await this.authenticate(req);
      if ('refused' in who)
        return who.refused === 429
          ? send(
              429,
              { status: 429, detail: who.detail },
              { 'retry-after': String(this.d.settings.rateLimits.windowSeconds) },
            )
          : send(401, { status: 401, detail: who.detail }, { 'www-authenticate': 'Bearer realm="confirmations"' });
      if (req.method === 'GET') {
        const rec = await this.d.confirmations.view(id, who.sub);
        if (!rec) return send(404, { status: 404, detail: 'No such confirmation for you' });
        return send(200, shown(rec));
      }
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
        return send(415, { status: 415, detail: 'Content-Type must be application/json' });
      let decision: unknown;
      try {
        decision = (JSON.parse(body) as { decision?: unknown })?.decision;
      } catch {
        decision = undefined;
      }
      if (decision !== 'confirm' && decision !== 'refuse')
        return send(400, { status: 400, detail: 'decision must be "confirm" or "refuse"', field: '/decision' });
      const r = await this.d.confirmations.decide(id, who.sub, decision === 'confirm');
      if (r.kind === 'unknown') return send(404, { status: 404, detail: 'No such confirmation for you' });
      const clientIp = this.d.ip.of(req.socket.remoteAddress, req.headers['x-forwarded-for']);
      const audit = (outcome: string) =>
        this.d.audit.record({
          kind: 'confirmation',
          outcome,
          detail: 'url page',
          tool: r.record.tool,
          user: who.sub,
          subscription: r.record.sub,
          issuer: who.iss,
          jti: who.jti,
          argsDigest: r.record.d,
          correlationId,
          clientIp,
        });
      if (r.kind === 'decided')
        return send(409, {
          status: 409,
          detail: `This confirmation was ${r.record.state} already`,
          ...shown(r.record),
        });
      if (r.kind === 'expired') {
        audit('expired');
        return send(410, {
          status: 410,
          detail: 'This confirmation expired; nothing was done. Ask the agent to try again',
        });
      }
      const confirmed = r.record.state === 'confirmed';
      audit(confirmed ? 'given' : 'refused');
      return send(200, {
        ...shown(r.record),
        detail: confirmed
          ? 'Confirmed. The agent can now make this payment, once; you may close this page.'
          : 'Refused. Nothing was done; you may close this page.',
      });
    } catch (e) {
      if (!(e instanceof StoreUnavailableError)) throw e;
      return send(
        503,
        { status: 503, detail: 'Confirmations cannot be read now; retry in a moment' },
        { 'retry-after': '1' },
      );
    }
  }

  /** The person: a bearer token of theirs, verified; a token not seen before is paid for from the IP's budget. */
  private async authenticate(req: IncomingMessage): Promise<VerifiedToken | { refused: 401 | 429; detail: string }> {
    const m = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(req.headers.authorization ?? '');
    if (!m) return { refused: 401, detail: 'Sign in: send Authorization: Bearer <your token>' };
    const known = this.d.verifier.cached(m[1]);
    if (known) return known;
    const s = this.d.settings;
    const key = `ip:${this.d.ip.limitKey(req.socket.remoteAddress, req.headers['x-forwarded-for'])}`;
    let pre = this.d.limiter.hit([{ key, limit: s.rateLimits.anonymous }], s.rateLimits.windowSeconds * 1000);
    if (pre instanceof Promise) pre = await pre;
    if (!pre.allowed) return { refused: 429, detail: 'Too many sign-in attempts from this address; retry later' };
    try {
      return await this.d.verifier.verify(m[1]);
    } catch (e) {
      if (e instanceof TokenError) return { refused: 401, detail: `The token was refused: ${e.message}` };
      throw e;
    }
  }
}

/** What the page shows of a confirmation (the user's own): never the arguments, only the masked summary. */
function shown(rec: PendingConfirmation): Record<string, unknown> {
  return {
    id: rec.id,
    tool: rec.tool,
    title: rec.title,
    lines: rec.lines,
    state: rec.state,
    expiresAt: new Date(rec.exp).toISOString(),
  };
}
