// `engine test [DIR...]`: runs the declarative route tests (routes/<connector>/tests/*.yaml) and
// `engine test-schema`: writes their JSON Schema for editors.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { simulating, type CliExtension } from './extensions.ts';

interface TestOpts {
  values: string;
  secrets?: string;
  filter?: string;
  reporter: 'text' | 'json';
  coverage?: boolean;
  coverageJson?: string;
  coverageMin?: number;
  coverageMinRoute?: number;
}

function percentArg(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)
    throw new InvalidArgumentError(`a percentage from 0 to 100, got '${v}'`);
  return n;
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
    .option('--coverage', 'report per route the steps, choice branches and on-exception handlers the cases reached')
    .option('--coverage-json <file>', 'write the coverage report as JSON to the file (implies --coverage)')
    .option('--coverage-min <percent>', 'exit 1 when less of all points is reached (implies --coverage)', percentArg)
    .option(
      '--coverage-min-route <percent>',
      "exit 1 when less of any one route's points is reached, naming each such route (implies --coverage)",
      percentArg,
    )
    .action(async (dirs: string[], o: TestOpts) => {
      const { runRouteTests } = await import('../testing/runner.ts');
      const { textLine, summary, jsonReport } = await import('../testing/report.ts');
      const { Coverage } = await import('../pipeline/coverage.ts');
      const { coverageReport, coverageText } = await import('../testing/coverage-report.ts');
      const started = performance.now();
      const simulators = simulating(extensions);
      const wantsCoverage = !!(
        o.coverage ||
        o.coverageJson ||
        o.coverageMin !== undefined ||
        o.coverageMinRoute !== undefined
      );
      const counts = wantsCoverage ? new Coverage() : undefined;
      const results = await runRouteTests({
        paths: dirs,
        valuesDir: o.values,
        secretsDir: o.secrets,
        filter: o.filter,
        // the simulators only for files that ask for them (simulators: true)
        simulators,
        extensions: extensions.filter((x) => x !== simulators),
        onResult: o.reporter === 'text' ? (r) => process.stdout.write(textLine(r) + '\n') : undefined,
        coverage: counts,
      });
      const ms = performance.now() - started;
      const coverage = counts && coverageReport(counts.all());
      if (coverage && o.coverageJson) {
        mkdirSync(dirname(o.coverageJson), { recursive: true });
        writeFileSync(o.coverageJson, JSON.stringify(coverage, null, 2) + '\n');
      }
      if (o.reporter === 'json') process.stdout.write(jsonReport(results, ms, coverage) + '\n');
      else {
        if (coverage) process.stdout.write(coverageText(coverage) + '\n');
        process.stdout.write(summary(results, ms) + '\n');
      }
      process.exitCode = results.some((r) => !r.ok) ? 1 : results.length ? 0 : 1;
      if (!results.length && o.reporter === 'text')
        process.stderr.write(
          `engine test: no test cases found under ${dirs.join(', ')}${o.filter ? ` matching '${o.filter}'` : ''}\n`,
        );
      // the threshold is on the exact share of all points, not on the rounded percent shown
      if (coverage && o.coverageMin !== undefined && coverage.reached * 100 < o.coverageMin * coverage.total) {
        process.stderr.write(`engine test: coverage ${coverage.percent}% is below --coverage-min ${o.coverageMin}\n`);
        process.exitCode = 1;
      }
      if (coverage && o.coverageMinRoute !== undefined) {
        const min = o.coverageMinRoute;
        for (const r of coverage.routes) {
          const reached = r.steps.reached + r.branches.reached + r.handlers.reached;
          const total = r.steps.total + r.branches.total + r.handlers.total;
          if (reached * 100 >= min * total) continue;
          process.stderr.write(
            `engine test: route ${r.route} (${r.file}) reached ${r.percent}% of its points, below --coverage-min-route ${min}\n`,
          );
          process.exitCode = 1;
        }
      }
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
