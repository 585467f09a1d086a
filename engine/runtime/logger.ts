// pino logger with secrets masked: authorization headers, subscription keys, passwords, tokens.

import pino, { type Logger, type LevelWithSilent } from 'pino';

/** `abcd****`: enough to tell two secrets apart in a log, never enough to use one. */
export function mask(v: unknown): string {
  if (v === undefined || v === null) return String(v);
  const s = String(v);
  if (s.length <= 8) return '****';
  const bearer = /^(Bearer|Basic)\s+/i.exec(s);
  if (bearer) return `${bearer[0]}${s.slice(bearer[0].length, bearer[0].length + 4)}****`;
  return `${s.slice(0, 4)}****`;
}

export const REDACT_PATHS = [
  'headers.authorization', 'headers["ocp-gateway-subscription-key"]', 'headers.cookie', 'headers["x-api-key"]',
  'headers.client_key', 'headers["webhook-signature"]',
  'req.headers.authorization', 'req.headers["ocp-gateway-subscription-key"]', 'req.headers.cookie',
  '*.password', '*.secret', '*.token', '*.apiKey', '*.client_key', '*.subscriptionKey', 'password', 'token', 'secret',
];

export function createLogger(level: LevelWithSilent = (process.env.LOG_LEVEL as LevelWithSilent) ?? 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: (v) => mask(v) },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
