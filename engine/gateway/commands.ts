// CLI commands of the gateway:
//   engine keys create [--name NAME] [--env ENV] [--tools a,b] [--secondary]
//   engine tools list [DIR...] [--env ENV]
//   engine tools approve NAME... | --all [DIR...] [--env ENV] [--unaudited]
// (an approval is recorded in the gateway's audit trail first; when that cannot be written,
// nothing is approved; --unaudited approves without the record, and says so)
// (`--env` of the tools commands: by default the simulated environment, else required)
//   engine tools schema [--out schemas/gateway-tools.schema.json]
//   engine audit verify | list (audit-command.ts)

import type { Command } from 'commander';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { lintProject } from '../engine.ts';
import { formatDiagnostic, isError } from '../core/diagnostics.ts';
import { createLogger } from '../observability/logger.ts';
import { maskText } from '../observability/mask.ts';
import { keyEntry, newKey } from './keys.ts';
import { approvalState, approvalsPath, readApprovals, toolsJsonSchema, writeApprovals, type Tool } from './tools.ts';
import type { GatewayExtension } from './extension.ts';
import type { CommandContext } from '../cli-extension.ts';
import { approvalEntries, osUser, recordApprovalsInProject } from './audit-approvals.ts';
import { registerAuditCommand } from './audit-command.ts';

function fail(msg: string): never {
  process.stderr.write(`engine: ${msg}\n`);
  process.exit(1);
}

async function loadTools(ext: GatewayExtension, dirs: string[], o: { env?: string; values: string }): Promise<Tool[]> {
  const diags = await lintProject({
    routes: dirs.length ? dirs : ['routes'],
    env: o.env,
    valuesDir: o.values,
    extensions: [ext],
    logger: createLogger('silent'),
  });
  // problems of the tool files block (a tool whose route did not compile shows up there); other
  // connectors' problems are theirs
  const blocking = diags.filter(
    (d) => isError(d) && ext.toolFiles.has(d.file) && !/changed since it was approved/.test(d.message),
  );
  if (blocking.length) {
    for (const d of blocking) process.stderr.write(formatDiagnostic(d) + '\n');
    fail(`${blocking.length} problem(s); fix them first (engine lint)`);
  }
  return ext.tools;
}

/** `--env`: the simulated environment by default (where tools are tried first), else required. */
function envOption(cmd: Command, ctx: CommandContext): Command {
  const env = ctx.simulatedEnvironment;
  return env ? cmd.option('--env <name>', 'environment', env) : cmd.requiredOption('--env <name>', 'environment');
}

interface ApproveOptions {
  all?: boolean;
  env: string;
  values: string;
  routes: string;
  by?: string;
  unaudited?: boolean;
}

export function registerGatewayCommands(program: Command, ext: GatewayExtension, ctx: CommandContext = {}): void {
  const keys = program.command('keys').description('gateway subscription keys');
  keys
    .command('create')
    .description('print a new subscription key (shown once) and the entry to store in values/gateway.values.yaml')
    .option('--name <name>', 'subscription name', 'my-agent')
    .option('--env <name>', 'environment the key is for', 'development')
    .option('--tools <list>', "tools the subscription may use, comma-separated ('*' = all approved)", '*')
    .option('--secondary', 'print the entry as the secondary key (rotation)')
    .action((o: { name: string; env: string; tools: string; secondary?: boolean }) => {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(o.name)) fail('--name: letters, digits, - and _ only');
      const key = newKey();
      const tools = o.tools
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      process.stdout.write(
        [
          'New subscription key (shown once; hand it to the client and keep no other copy):',
          '',
          `  ${key}`,
          '',
          'Store only its hash, in values/gateway.values.yaml:',
          '',
          'gateway:',
          '  subscriptions:',
          `    ${o.env}:`,
          `      ${o.name}:`,
          `        ${o.secondary ? 'secondary' : 'primary'}: ${keyEntry(key)}`,
          ...(o.secondary ? [] : [`        tools: [${tools.map((t) => (t === '*' ? "'*'" : t)).join(', ')}]`]),
          '',
        ].join('\n'),
      );
    });

  registerAuditCommand(program);

  const tools = program.command('tools').description('gateway tools and their approvals');
  envOption(
    tools
      .command('list')
      .description('the declared tools and their approval state in an environment')
      .argument('[dirs...]', 'route folders', ['routes']),
    ctx,
  )
    .option('--values <dir>', 'values directory', 'values')
    .action(async (dirs: string[], o: { env: string; values: string }) => {
      const list = await loadTools(ext, dirs, o);
      const approvals = readApprovals(resolve(o.values));
      const rows = list.map((t) => [
        t.name,
        t.security,
        t.route,
        approvalState(t, approvals, o.env),
        t.digest.slice(0, 19),
      ]);
      const head = ['TOOL', 'SECURITY', 'ROUTE', `STATE (${o.env})`, 'DIGEST'];
      const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
      for (const r of [head, ...rows])
        process.stdout.write(
          r
            .map((c, i) => c.padEnd(w[i]))
            .join('  ')
            .trimEnd() + '\n',
        );
    });

  envOption(
    tools
      .command('approve')
      .description(
        'approve tools for an environment: records the digest of their metadata in values/gateway-approvals.yaml',
      )
      .argument('[names...]', 'tool names')
      .option('--all', 'every declared tool'),
    ctx,
  )
    .option('--values <dir>', 'values directory', 'values')
    .option('--routes <dirs>', 'route folders, comma-separated', 'routes')
    .option('--by <who>', 'approver, recorded beside the digest and in the audit trail (default: the OS user)')
    .option('--unaudited', 'approve without recording it in the audit trail (the durable store)')
    .action(async (names: string[], o: ApproveOptions) => {
      if (!names.length && !o.all) fail('name the tools to approve, or pass --all');
      const list = await loadTools(ext, o.routes.split(','), o);
      const unknown = names.filter((n) => !list.some((t) => t.name === n));
      if (unknown.length)
        fail(
          `no tool named ${unknown.map((n) => `'${n}'`).join(', ')}; declared: ${list.map((t) => t.name).join(', ')}`,
        );
      const chosen = o.all ? list : list.filter((t) => names.includes(t.name));
      const entries = approvalEntries(chosen, readApprovals(resolve(o.values)), o.env, o.by ?? osUser());
      if (o.unaudited) process.stderr.write('engine: approving without an audit record (--unaudited)\n');
      else
        await recordApprovalsInProject({ routes: o.routes.split(','), env: o.env, valuesDir: o.values }, entries).catch(
          (e) =>
            fail(
              `the approval could not be recorded in the audit trail (${maskText(String((e as Error)?.cause ?? (e as Error)?.message ?? e))}); ` +
                'nothing was approved. Stop an engine holding the embedded store, or pass --unaudited to approve without the record',
            ),
        );
      writeApprovals(resolve(o.values), o.env, chosen, o.by);
      for (const t of chosen) process.stdout.write(`approved ${t.name} for ${o.env}: ${t.digest}\n`);
      process.stdout.write(`wrote ${approvalsPath(o.values)}\n`);
    });

  tools
    .command('schema')
    .description('write the JSON Schema of tools files (for editors)')
    .option('--out <file>', 'output file', 'schemas/gateway-tools.schema.json')
    .action((o: { out: string }) => {
      mkdirSync(dirname(o.out), { recursive: true });
      writeFileSync(o.out, JSON.stringify(toolsJsonSchema(), null, 2) + '\n');
      process.stdout.write(`wrote ${o.out}\n`);
    });
}
