// The one registry of source (`from`) kinds.

import type { SourceKind } from './source-kind.ts';
import http from './http.ts';
import direct from './direct.ts';
import cron from './cron.ts';
import amqp from './amqp.ts';

export const SOURCE_KINDS: ReadonlyMap<string, SourceKind> = new Map(
  [http, direct, cron, amqp].map((k) => [k.kind, k as SourceKind]),
);
