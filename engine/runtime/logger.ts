// pino logger with secrets masked: by field name (authorization headers, subscription keys,
// passwords, tokens) and by shape in any logged text (bearer tokens, JWTs, subscription keys),
// since a vendor may copy a credential into a free-text message.

import pino, { type Logger, type LevelWithSilent } from 'pino';
import { maskSecret, maskText } from './mask.ts';

/** `abcd****`: enough to tell two secrets apart in a log, never enough to use one. */
export const mask = maskSecret;

export const REDACT_PATHS = [
  'headers.authorization', 'headers["ocp-gateway-subscription-key"]', 'headers.cookie', 'headers["x-api-key"]',
  'headers.client_key', 'headers["webhook-signature"]',
  'req.headers.authorization', 'req.headers["ocp-gateway-subscription-key"]', 'req.headers.cookie',
  '*.password', '*.secret', '*.token', '*.apiKey', '*.client_key', '*.subscriptionKey', 'password', 'token', 'secret',
];

// log text is masked, not bounded: a stack trace or a long diagnostic stays whole
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Masks the strings of a log object: plain objects and arrays only (errors have serializers), a few levels deep. */
function maskFields(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return maskText(v, [], UNBOUNDED);
  if (v === null || typeof v !== 'object' || depth > 4) return v;
  if (Array.isArray(v)) return v.map((x) => maskFields(x, depth + 1));
  if (Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = maskFields((v as Record<string, unknown>)[k], depth + 1);
  return out;
}

export const LOG_LEVELS: readonly LevelWithSilent[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** The level LOG_LEVEL names: unset or empty (`LOG_LEVEL=` in a manifest) is `info`; case and spaces do not matter. */
export function parseLogLevel(value: string | undefined): LevelWithSilent {
  const v = (value ?? '').trim().toLowerCase();
  if (!v) return 'info';
  if ((LOG_LEVELS as string[]).includes(v)) return v as LevelWithSilent;
  throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(value)})`);
}

/** LOG_LEVEL is the operator's setting for the whole process; a wrong one throws one clear line (the CLI prints it and exits). */
function levelFromEnv(): LevelWithSilent {
  return parseLogLevel(process.env.LOG_LEVEL);
}

export function createLogger(level: LevelWithSilent = levelFromEnv(), destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: (v) => maskSecret(v) },
      formatters: {
        level: (label) => ({ level: label }),
        log: (obj) => maskFields(obj, 0) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = maskText(args[i] as string, [], UNBOUNDED);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
