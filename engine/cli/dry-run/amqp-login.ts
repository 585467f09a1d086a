// The AMQP login of a `from: amqp` route: a connection opened with the configured user name and
// password (SASL), then closed; no link, no message. A refusal names where the credentials are
// set (the environmental keys), never the password.

import type { EventContext } from 'rhea';
import type { AmqpAddress } from '../../amqp/rhea-util.ts';
import type { Outcome } from './check.ts';

const TIMEOUT_MS = 5000;

export interface AmqpLogin {
  address: AmqpAddress;
  username?: string;
  password?: string;
  /** where the user name and password are set, e.g. `broker-username / broker-password` */
  credentials: string;
}

export async function amqpLogin(l: AmqpLogin): Promise<Outcome> {
  const { default: rhea } = await import('../../sources/rhea.ts');
  const a = l.address;
  const container = rhea.create_container();
  return new Promise<Outcome>((resolve) => {
    let done = false;
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(o);
    };
    const conn = container.connect({
      host: a.host,
      port: a.port,
      transport: a.tls ? 'tls' : 'tcp',
      hostname: a.vhost ? `vhost:${a.vhost}` : a.host,
      ...(a.tls ? { servername: a.host } : {}),
      username: l.username,
      password: l.password,
      reconnect: false,
    } as never);
    const refused = (ctx: EventContext) => {
      const e = (ctx as { error?: unknown }).error ?? ctx.connection?.error;
      const text = errText(e);
      const auth = /authenticat|sasl|unauthori[sz]ed|access.refused|login/i.test(text);
      finish({
        status: 'FAIL',
        reason: auth
          ? `login refused for user '${l.username ?? '(anonymous)'}': check ${l.credentials} (${text})`
          : `connection failed: ${text}`,
      });
      conn.close();
    };
    const timer = setTimeout(() => {
      finish({ status: 'FAIL', reason: `no AMQP open within ${TIMEOUT_MS} ms` });
      conn.close();
    }, TIMEOUT_MS);
    conn.on('connection_open', () => {
      finish({ status: 'ok', reason: `logged in as '${l.username ?? '(anonymous)'}' and closed` });
      conn.close();
    });
    conn.on('connection_error', refused);
    conn.on('error', refused);
    conn.on('disconnected', (ctx: EventContext) => {
      if (!done) refused(ctx);
    });
  });
}

function errText(e: unknown): string {
  if (!e) return 'the broker closed the connection';
  if (typeof e === 'object') {
    const o = e as { condition?: string; description?: string; message?: string; code?: string };
    const t = [o.condition, o.description ?? o.message].filter(Boolean).join(': ');
    if (t) return t;
    if (o.code) return o.code;
  }
  return String(e);
}
