// `engine dry-run --env NAME`: before the first request, checks what the project would reach
// without sending any business traffic (dry-run/run-checks.ts): one line per check, exit code 1
// when any fails, `--json` for scripts. The project loads as `engine run` loads it, so on a
// simulated environment the simulators start and the checks run against them. Reasons are masked
// with the configured secrets (observability/mask.ts).

import type { Command } from 'commander';
import { openEngine, type EngineOptions, type OpenedEngine } from '../engine.ts';
import { DiagnosticError, formatDiagnostic, isError } from '../core/diagnostics.ts';
import { createLogger } from '../observability/logger.ts';
import { compileSecrets, maskText, valuesSecrets } from '../observability/mask.ts';
import type { GatewayExtension } from '../gateway/extension.ts';
import { formatResults } from './dry-run/check.ts';

interface DryRunOpts {
  env?: string;
  values: string;
  secrets?: string;
  set: Record<string, string>;
  json?: boolean;
}

export function registerDryRunCommand(
  program: Command,
  common: (cmd: Command) => Command,
  toOptions: (dirs: string[], o: DryRunOpts) => EngineOptions,
): void {
  common(program.command('dry-run').argument('[dirs...]', 'route files or directories', ['routes']))
    .description(
      "check each client's DNS, TCP and TLS, the AMQP logins, the durable store and the gateway's JWKS without sending business traffic; exits 1 when a check fails",
    )
    .option('--json', 'JSON output, for scripts')
    .action(async (dirs: string[], o: DryRunOpts) => {
      const opts = toOptions(dirs, o);
      let engine: OpenedEngine;
      try {
        engine = await openEngine({ ...opts, logger: createLogger('silent') });
      } catch (e) {
        if (!(e instanceof DiagnosticError)) throw e;
        refuse(e.diagnostics.map(formatDiagnostic), e.diagnostics.length);
        return;
      }
      try {
        const errors = engine.diagnostics.filter(isError);
        if (errors.length) {
          refuse(errors.map(formatDiagnostic), errors.length);
          return;
        }
        const secrets = compileSecrets(valuesSecrets(engine.values));
        // the gateway runs (and needs its keys) only when tools files were loaded
        const gateway = opts.extensions?.find((x) => x.name === 'gateway') as GatewayExtension | undefined;
        // the checks (pg, rhea, jose) load when the command runs, not at every CLI start
        const { runChecks } = await import('./dry-run/run-checks.ts');
        const results = (await runChecks(engine, !!gateway?.tools.length)).map((r) => ({
          ...r,
          reason: maskText(r.reason, secrets),
        }));
        const ok = !results.some((r) => r.status === 'FAIL');
        process.stdout.write(o.json ? JSON.stringify({ ok, checks: results }, null, 2) + '\n' : formatResults(results));
        if (!ok) process.exitCode = 1;
      } finally {
        await engine.close();
      }
    });
}

function refuse(lines: string[], n: number): void {
  for (const l of lines) process.stderr.write(l + '\n');
  process.stderr.write(`engine: ${n} problem(s) loading the project; nothing checked\n`);
  process.exitCode = 1;
}
