// `engine clients schema`: writes the editor schema of clients files (HTTP client profiles).

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { clientsJsonSchema } from '../dsl/clients.ts';

export function registerClientsCommand(program: Command): void {
  program
    .command('clients')
    .description('HTTP client profiles (routes/<connector>/connector.yaml)')
    .command('schema')
    .description('write the JSON Schema of clients files, for editors')
    .option('--out <file>', 'output file', 'schemas/clients.schema.json')
    .action((o: { out: string }) => {
      mkdirSync(dirname(o.out), { recursive: true });
      writeFileSync(o.out, JSON.stringify(clientsJsonSchema(), null, 2) + '\n');
      process.stdout.write(`wrote ${o.out}\n`);
    });
}
