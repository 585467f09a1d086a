// pino logger with secrets masked: by field name (authorization headers, subscription keys,
// passwords, tokens), and in any logged text by shape (bearer tokens, JWTs, subscription keys) and
// by value in every form (the configured secrets the engine registers with setLogSecrets), since
// a vendor may copy a credential into a free-text message.

import pino, { type Logger, type LevelWithSilent } from 'pino';
import { maskSecret, maskText, NO_SECRETS, type Secrets } from './mask.ts';

/** `abcd****`: enough to tell two secrets apart in a log, never enough to use one. */
export const mask = maskSecret;

const REDACT_PATHS = [
  'headers.authorization',
  'headers["ocp-gateway-subscription-key"]',
  'headers.cookie',
  'headers["x-api-key"]',
  'headers.client_key',
  'headers["webhook-signature"]',
  'req.headers.authorization',
  'req.headers["ocp-gateway-subscription-key"]',
  'req.headers.cookie',
  '*.password',
  '*.secret',
  '*.token',
  '*.apiKey',
  '*.client_key',
  '*.subscriptionKey',
  'password',
  'token',
  'secret',
];

// log text is masked, not bounded: a stack trace or a long diagnostic stays whole
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Masks the strings of a log object: plain objects and arrays only (errors have serializers), a few levels deep. */
function maskFields(v: unknown, secrets: Secrets, depth: number): unknown {
  if (typeof v === 'string') return maskText(v, secrets, UNBOUNDED);
  if (v === null || typeof v !== 'object' || depth > 4) return v;
  if (Array.isArray(v)) return v.map((x) => maskFields(x, secrets, depth + 1));
  if (Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = maskFields((v as Record<string, unknown>)[k], secrets, depth + 1);
  return out;
}

/** The texts of a serialised error, masked in place (it keeps pino's error prototype). */
function maskError(e: unknown, secrets: Secrets): unknown {
  if (typeof e !== 'object' || e === null) return e;
  const o = e as Record<string, unknown>;
  for (const k of Object.keys(o)) if (typeof o[k] === 'string') o[k] = maskText(o[k] as string, secrets, UNBOUNDED);
  return o;
}

/**
 * The secrets each logger made by createLogger masks by value; its child loggers share them. Keyed
 * by the logger: per engine already, as each engine makes its own (engines handed one logger share it).
 */
const registered = new WeakMap<Logger, { secrets: Secrets }>();

/**
 * The secret values `logger` and its children mask in every form from now on (compiled once, at
 * load and at each reload); replaces what was registered before. A logger not made by
 * createLogger is left as it is.
 */
export function setLogSecrets(logger: Logger, secrets: Secrets): void {
  const r = registered.get(logger);
  if (r) r.secrets = secrets;
}

/** The secret values `logger` masks (what setLogSecrets registered): other text bound for a reader masks them too. */
export function logSecrets(logger: Logger): Secrets {
  return registered.get(logger)?.secrets ?? NO_SECRETS;
}

const LOG_LEVELS: readonly LevelWithSilent[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** The level LOG_LEVEL names: unset or empty (`LOG_LEVEL=` in a manifest) is `info`; case and spaces do not matter. */
export function parseLogLevel(value: string | undefined): LevelWithSilent {
  const v = (value ?? '').trim().toLowerCase();
  if (!v) return 'info';
  if ((LOG_LEVELS as string[]).includes(v)) return v as LevelWithSilent;
  throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(value)})`);
}

/**
 * LOG_LEVEL is the operator's setting for the whole process; a wrong one throws one clear line (the CLI
 * prints it and exits).
 */
function levelFromEnv(): LevelWithSilent {
  return parseLogLevel(process.env.LOG_LEVEL);
}

export function createLogger(level: LevelWithSilent = levelFromEnv(), destination?: pino.DestinationStream): Logger {
  const r = { secrets: NO_SECRETS };
  const logger = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: (v) => maskSecret(v) },
      // an error's message and stack may quote a credential too (the formatter sees the Error itself)
      serializers: { err: (e: unknown) => maskError(pino.stdSerializers.err(e as Error), r.secrets) },
      formatters: {
        level: (label) => ({ level: label }),
        log: (obj) => maskFields(obj, r.secrets, 0) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++)
            if (typeof args[i] === 'string') args[i] = maskText(args[i] as string, r.secrets, UNBOUNDED);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
  registered.set(logger, r);
  return logger;
}
