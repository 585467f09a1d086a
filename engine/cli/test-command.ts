// `engine test [DIR...]`: runs the declarative route tests (routes/<connector>/tests/*.yaml) and
// `engine test-schema`: writes their JSON Schema for editors.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Option, type Command } from 'commander';
import { simulating, type CliExtension } from './extensions.ts';

interface TestOpts {
  values: string;
  secrets?: string;
  filter?: string;
  reporter: 'text' | 'json';
}

export function registerTestCommand(program: Command, extensions: CliExtension[]): void {
  program
    .command('test')
    .argument('[dirs...]', 'test files, or folders searched for tests/*.yaml', ['routes'])
    .description('run the route tests (routes/<connector>/tests/*.yaml) against stub vendors; exits 1 on any failure')
    .option('--values <dir>', 'values directory', 'values')
    .option('--secrets <dir>', 'directory of secret files, one per environmental key')
    .option('--filter <text>', 'only cases whose name (or "file name") contains the text, or matches /regex/')
    .addOption(new Option('--reporter <kind>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (dirs: string[], o: TestOpts) => {
      const { runRouteTests } = await import('../testing/runner.ts');
      const { textLine, summary, jsonReport } = await import('../testing/report.ts');
      const started = performance.now();
      const simulators = simulating(extensions);
      const results = await runRouteTests({
        paths: dirs,
        valuesDir: o.values,
        secretsDir: o.secrets,
        filter: o.filter,
        // the simulators only for files that ask for them (simulators: true)
        simulators,
        extensions: extensions.filter((x) => x !== simulators),
        onResult: o.reporter === 'text' ? (r) => process.stdout.write(textLine(r) + '\n') : undefined,
      });
      const ms = performance.now() - started;
      process.stdout.write((o.reporter === 'json' ? jsonReport(results, ms) : summary(results, ms)) + '\n');
      process.exitCode = results.some((r) => !r.ok) ? 1 : results.length ? 0 : 1;
      if (!results.length && o.reporter === 'text')
        process.stderr.write(
          `engine test: no test cases found under ${dirs.join(', ')}${o.filter ? ` matching '${o.filter}'` : ''}\n`,
        );
    });

  program
    .command('test-schema')
    .description('write the JSON Schema of route test files (for editors)')
    .option('--out <file>', 'output file', 'schemas/route-test.schema.json')
    .action(async (o: { out: string }) => {
      const { routeTestJsonSchema } = await import('../dsl/route-test-schema.ts');
      mkdirSync(dirname(o.out), { recursive: true });
      writeFileSync(o.out, JSON.stringify(routeTestJsonSchema(), null, 2) + '\n');
      process.stdout.write(`wrote ${o.out}\n`);
    });
}
