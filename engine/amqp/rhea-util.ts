// Small helpers around rhea shared by the `from: amqp` source and an AMQP 1.0 simulator's
// endpoint: connection URLs without their secrets, message ids as strings, message bodies as
// bytes or text, and settling a delivery so that no other outcome is merged into its frame.

import { createHash } from 'node:crypto';
import type { Delivery, Message } from 'rhea';

export interface AmqpAddress {
  host: string;
  port: number;
  tls: boolean;
  /** user name and password carried in the URL itself, if any */
  username?: string;
  password?: string;
  /** virtual host from the URL path, if any (sent as the AMQP `hostname`) */
  vhost?: string;
}

/** `amqp://host:5672`, `amqps://user:pass@host`; throws with a message naming the problem. */
export function parseAmqpUrl(url: string): AmqpAddress {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`'${redactUrl(url)}' is not a URL; expected amqp://host[:port] or amqps://host[:port]`);
  }
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'amqp' && scheme !== 'amqps')
    throw new Error(`unsupported scheme '${scheme}' in '${redactUrl(url)}'; expected amqp:// or amqps://`);
  const tls = scheme === 'amqps';
  const port = u.port ? Number(u.port) : tls ? 5671 : 5672;
  const path = decodeURIComponent(u.pathname.replace(/^\//, ''));
  return {
    host: u.hostname,
    port,
    tls,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    vhost: path || undefined,
  };
}

/** The URL without user name and password, for logs and errors. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
}

/** AMQP message ids may be strings, numbers, UUIDs (16 bytes) or binary; logs and event ids need text. */
export function messageIdString(id: unknown): string | undefined {
  if (id === undefined || id === null) return undefined;
  if (typeof id === 'string') return id;
  if (typeof id === 'number' || typeof id === 'bigint') return String(id);
  if (Buffer.isBuffer(id)) {
    if (id.length === 16) {
      const h = id.toString('hex');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    return id.toString('hex');
  }
  return String(id);
}

/**
 * The body as bytes or a value: data sections (binary, e.g. a JMS BytesMessage) are concatenated;
 * an AmqpValue string (e.g. a JMS TextMessage) stays a string; maps and lists stay values.
 */
export function bodyOf(message: Message): { text?: string; value?: unknown; bytes?: Buffer } {
  const b = message.body as unknown;
  if (b === undefined || b === null) return { value: b };
  if (typeof b === 'string') return { text: b };
  if (Buffer.isBuffer(b)) return { bytes: b };
  const section = b as { typecode?: number; content?: unknown; multiple?: boolean };
  if (typeof section.typecode === 'number' && 'content' in section) {
    if (section.typecode === 0x75) {
      const parts = section.multiple ? (section.content as Buffer[]) : [section.content as Buffer];
      return { bytes: Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(String(p))))) };
    }
    return { value: section.content };
  }
  return { value: b };
}

/** A stable id for a message that has none: the SHA-256 of its body, so a redelivery keeps it. */
export function contentId(message: Message): string {
  const b = bodyOf(message);
  const h = createHash('sha256');
  if (b.bytes) h.update(b.bytes);
  else if (b.text !== undefined) h.update(b.text);
  else h.update(JSON.stringify(b.value) ?? '');
  return `sha256:${h.digest('hex')}`;
}

export type Outcome =
  { outcome: 'accepted' } | { outcome: 'released' } | { outcome: 'rejected'; condition: string; description: string };

/**
 * Settles a delivery so that its outcome cannot be merged with another. rhea 3.0.5 batches the
 * dispositions of one tick into ranges and, when a range starts with a single delivery, merges the
 * next deliveries into it whatever their outcome (session.js write_dispositions): a `rejected`
 * followed by `accepted` ones in the same tick would reject them all, a `released` one would
 * requeue messages that were already accepted. So before adding a disposition whose outcome differs
 * from one already waiting in this tick, the waiting ones are written first; dispositions of one
 * outcome still share a frame (and a socket write) as rhea intends. Returns false when the link
 * is gone (the broker then redelivers the message itself).
 */
export function settle(delivery: Delivery, o: Outcome): boolean {
  const link = delivery.link as unknown as {
    is_open?: () => boolean;
    connection: { is_open(): boolean; _process?: () => void };
    session?: { incoming?: { updated?: { outcome?: string }[] } };
  };
  if (!link.connection.is_open() || (link.is_open && !link.is_open())) return false;
  const waiting = link.session?.incoming?.updated;
  if (waiting?.length && waiting.some((d) => d.outcome !== o.outcome)) link.connection._process?.();
  (delivery as unknown as { outcome?: string }).outcome = o.outcome;
  if (o.outcome === 'accepted') delivery.accept();
  else if (o.outcome === 'released')
    delivery.release(); // `released`, not `modified`: RabbitMQ 3.x refuses `modified`
  else delivery.reject({ condition: o.condition, description: o.description.slice(0, 1000) });
  return true;
}
