// What triggers a reload of `engine run`: SIGHUP always, and with `--dev` a change to the
// routes, transforms, schemas, values, environment or secrets files. A refused reload prints
// its diagnostics the way `engine lint` does; the engine keeps serving the last good routes.

import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { EngineOptions, RunningEngine } from '../engine.ts';
import { formatDiagnostic } from '../core/diagnostics.ts';
import { watchProject } from '../dev/watch.ts';

export interface ReloadTriggers {
  close(): void;
}

/** The files and folders `--dev` watches. */
function watchedPaths(opts: EngineOptions): string[] {
  const root = resolve(opts.root ?? process.cwd());
  return [
    ...opts.routes.map((r) => resolve(root, r)),
    resolve(root, 'transforms'),
    resolve(root, 'schemas'),
    resolve(root, opts.valuesDir ?? 'values'),
    ...(opts.secretsDir ? [resolve(root, opts.secretsDir)] : []),
  ];
}

export function installReloadTriggers(
  engine: RunningEngine,
  o: { dev: boolean; opts: EngineOptions; logger: Logger; stderr?: NodeJS.WritableStream },
): ReloadTriggers {
  const stderr = o.stderr ?? process.stderr;
  const reload = async (reason: string) => {
    const r = await engine.reload(reason);
    if (!r.ok) {
      for (const d of r.diagnostics) stderr.write(formatDiagnostic(d) + '\n');
      stderr.write(`engine: ${r.diagnostics.length} problem(s); still serving the previous routes\n`);
    }
  };
  const onHup = () => void reload('SIGHUP');
  process.on('SIGHUP', onHup);
  const root = resolve(o.opts.root ?? process.cwd());
  const watcher = o.dev
    ? watchProject({
        root,
        paths: watchedPaths(o.opts),
        onChange: (files) =>
          void reload(
            `changed: ${files.slice(0, 5).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''}`,
          ),
        onError: (err, path) => o.logger.warn({ err, path }, 'dev: a watched path failed; reload with SIGHUP'),
      })
    : undefined;
  if (watcher)
    o.logger.info(
      { paths: watchedPaths(o.opts) },
      'dev: reloading on changes to routes, transforms, schemas and values',
    );
  return {
    close() {
      process.off('SIGHUP', onHup);
      watcher?.close();
    },
  };
}
