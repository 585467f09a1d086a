// The `engine` command: run, lint, routes, schema, errors, failed, --version (and the extensions' commands:
// the gateway's keys and tools, those of the program's own extensions).

import { writeFileSync, mkdirSync, existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command, Option } from 'commander';
import { startEngine, lintProject, type EngineOptions, type EngineExtension } from '../engine.ts';
import { DiagnosticError, formatDiagnostic, isError } from '../core/diagnostics.ts';
import { routeJsonSchema } from '../dsl/route-schema.ts';
import { updateDoc } from '../dsl/reference.ts';
import { createLogger } from '../observability/logger.ts';
import { loadExtensions, registerCommands, type CliExtension } from './extensions.ts';
import { registerTestCommand } from './test-command.ts';
import { registerEvalCommand } from './eval-command.ts';
import { registerClientsCommand } from './clients-command.ts';
import { registerErrorsCommand } from './errors-command.ts';
import { registerFailedCommand } from './failed-command.ts';
import { packageVersion } from '../observability/build-info.ts';
import { registerNewCommand } from './new-command.ts';
import { registerDryRunCommand } from './dry-run-command.ts';
import { registerDeployFilesCommand } from './deploy-files-command.ts';
import { collectSet, listenFailure, parsePort, reportFailure } from './startup-errors.ts';
import { cacheFolderFor, setCacheFolder } from '../core/disk-cache.ts';

/** The version of the nearest package.json above this file (the sources, or dist/ after a build). */
interface CommonOpts {
  env?: string;
  values: string;
  secrets?: string;
  set: Record<string, string>;
}

function engineOptions(dirs: string[], o: CommonOpts, extensions: EngineExtension[]): EngineOptions {
  return {
    routes: dirs.length ? dirs : ['routes'],
    valuesDir: o.values,
    env: o.env,
    secretsDir: o.secrets,
    set: o.set,
    extensions,
  };
}

function common(cmd: Command): Command {
  return cmd
    .option('--env <name>', 'environment (values/environments/<name>.yaml)')
    .option('--values <dir>', 'values directory', 'values')
    .option('--secrets <dir>', 'directory of secret files, one per environmental key')
    .option(
      '--set <key=value>',
      'set an environmental key or a property (repeatable; file:prop scopes one values file)',
      collectSet,
      {},
    );
}

/** `plugins`: extensions the program composes in (bin/engine.js registers its simulators), first. */
export async function main(argv: string[], plugins: CliExtension[] = []): Promise<void> {
  // what a start works out from the project's files, kept between commands (engine/core/disk-cache.ts)
  setCacheFolder(cacheFolderFor(process.env, process.cwd()));
  const program = new Command('engine')
    .description('Declarative YAML route engine for bank integrations')
    .version(packageVersion(), '-V, --version', 'print the engine version');
  const extensions = await loadExtensions(plugins, argv);

  common(program.command('run').argument('[dirs...]', 'route files or directories', ['routes']))
    .description('lint the routes, then serve them')
    .addOption(new Option('--port <n>', 'HTTP port (0: any free port)').argParser(parsePort))
    .option('--host <addr>', 'listen address')
    .option(
      '--dev',
      'watch routes, transforms, schemas and values; lint and reload on every change (SIGHUP reloads in any mode)',
    )
    .option(
      '--stubs <file>',
      'a route test file whose stubs stand in for the vendors they name (its set: fills in unset keys)',
    )
    .action(async (dirs: string[], o: CommonOpts & { port?: number; host?: string; dev?: boolean; stubs?: string }) => {
      let logger: ReturnType<typeof createLogger>;
      try {
        logger = createLogger();
      } catch (e) {
        // a wrong LOG_LEVEL: one line, not a stack trace
        process.stderr.write(`engine: ${(e as Error).message}\n`);
        process.exit(1);
      }
      const opts = { ...engineOptions(dirs, o, extensions), port: o.port, host: o.host, logger };
      if (o.stubs) {
        // the test file's stubs answer for their targets (engine/testing/run-stubs.ts)
        const stubbed = await withStubs(o.stubs, opts);
        logger.info(
          { stubs: o.stubs, targets: stubbed },
          `serving with the stubs of ${o.stubs} for ${Object.keys(stubbed).join(', ') || 'no target'}`,
        );
      }
      // one compile: startEngine refuses to start on any diagnostic (the project is not linted
      // separately first, which compiled every route, schema and expression twice)
      let engine;
      try {
        engine = await startEngine(opts);
      } catch (e) {
        if (e instanceof DiagnosticError) {
          for (const d of e.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
          process.stderr.write(`engine: ${e.diagnostics.length} problem(s); not starting\n`);
          process.exit(1);
        }
        // the listener's address taken or not ours, a wrong OTEL_* or other setting: one line an
        // operator can act on, not a stack trace (startup-errors.ts)
        const listen = listenFailure(e, { port: o.port, host: o.host, env: o.env });
        if (listen) process.stderr.write(`engine: ${listen}\n`);
        else reportFailure(e);
        process.exit(1);
      }
      // SIGHUP reloads from the moment the engine says it started
      const { installReloadTriggers } = await import('./dev-reload.ts');
      const triggers = installReloadTriggers(engine, { dev: o.dev === true, opts, logger });
      // run from the build: whether V8's code cache of it was used (bin/load-build.js)
      const codeCache = (globalThis as Record<symbol, unknown>)[Symbol.for('engine.codeCache')];
      logger.info(
        {
          url: engine.url,
          routes: engine.routes.length,
          env: o.env ?? 'default',
          ...engine.simulators,
          ...(codeCache ? { codeCache } : {}),
        },
        'engine started',
      );
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        triggers.close();
        await engine!.close();
        logger.flush?.();
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
    });

  common(program.command('lint').argument('[dirs...]', 'route files or directories', ['routes']))
    .description(
      'check routes, values and schemas; prints file:line:col diagnostics, exits 1 on an error (on a warning too with --strict)',
    )
    .option('--strict', 'exit 1 on warnings too (an unused client profile, say)')
    .action(async (dirs: string[], o: CommonOpts & { strict?: boolean }) => {
      const diags = await lintProject({ ...engineOptions(dirs, o, extensions), logger: createLogger('silent') });
      for (const d of diags) process.stdout.write(formatDiagnostic(d) + '\n');
      const errors = diags.filter(isError).length;
      const warnings = diags.length - errors;
      if (!diags.length) {
        process.stdout.write('no problems\n');
        return;
      }
      process.stdout.write(
        `${diags.length} problem(s)${warnings ? ` (${errors} error(s), ${warnings} warning(s))` : ''}\n`,
      );
      if (errors || o.strict) process.exit(1);
    });

  common(program.command('routes').argument('[dirs...]', 'route files or directories', ['routes']))
    .description('list the routes: id, source, connector, values file')
    .option(
      '--explain <id>',
      'what one route inherits: its values file, its client profiles after extends (secrets masked), its on-exception handlers',
    )
    .action(async (dirs: string[], o: CommonOpts & { explain?: string }) => {
      const opts = { ...engineOptions(dirs, o, extensions), logger: createLogger('silent') };
      if (o.explain !== undefined) {
        const { explainRoute } = await import('./route-explain.ts');
        const r = await explainRoute(opts, o.explain);
        (r.ok ? process.stdout : process.stderr).write(r.text);
        if (!r.ok) process.exitCode = 1;
        return;
      }
      const { listRoutes } = await import('./routes-table.ts');
      process.stdout.write(await listRoutes(opts));
    });

  program
    .command('schema')
    .description('write the JSON Schema of the route DSL (for editors) and the generated reference in docs/routes.md')
    .option('--out <file>', 'output file', 'schemas/route.schema.json')
    .option('--docs <file>', 'DSL reference document to update', 'docs/routes.md')
    .action((o: { out: string; docs: string }) => {
      mkdirSync(dirname(o.out), { recursive: true });
      writeFileSync(o.out, JSON.stringify(routeJsonSchema(), null, 2) + '\n');
      const doc = existsSync(o.docs) ? readFileSync(o.docs, 'utf8') : '# Routes DSL\n';
      writeFileSync(o.docs, updateDoc(doc));
      process.stdout.write(`wrote ${o.out} and ${o.docs}\n`);
    });

  registerTestCommand(program, extensions);
  registerEvalCommand(program);
  registerClientsCommand(program);
  registerErrorsCommand(program, extensions);
  registerFailedCommand(program, common, (o) => engineOptions(o.routes, o, extensions));
  registerDryRunCommand(program, common, (dirs, o) => engineOptions(dirs, o, extensions));
  registerNewCommand(program);
  registerDeployFilesCommand(program, (dirs, o) => engineOptions(dirs, { ...o, set: {} }, extensions));
  registerCommands(program, extensions);
  try {
    await program.parseAsync(argv);
  } catch (e) {
    // a command's failure in words, never a stack of the user's mistake (startup-errors.ts)
    reportFailure(e);
  }
}

/**
 * Adds the stubs of a route test file to the options of `engine run --stubs`: their extension, and
 * the file's `set:` under the command line's own. A broken file stops the start with its diagnostics.
 */
async function withStubs(file: string, opts: EngineOptions): Promise<Record<string, string>> {
  const { runStubs } = await import('../testing/run-stubs.ts');
  try {
    const s = await runStubs(file, process.cwd());
    opts.extensions = [...(opts.extensions ?? []), s.extension];
    opts.set = { ...s.set, ...opts.set };
    return s.targets;
  } catch (e) {
    if (e instanceof DiagnosticError) {
      for (const d of e.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
      process.stderr.write(`engine: ${file} has ${e.diagnostics.length} problem(s); not starting\n`);
    } else process.stderr.write(`engine: --stubs ${file}: ${(e as Error).message}\n`);
    process.exit(1);
  }
}
