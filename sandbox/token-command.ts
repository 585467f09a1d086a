// `engine token --sub alice [--ttl 3600] [--env sandbox]`: a token signed with the sandbox
// identity provider's key, for trying the gateway's bearer tools on `npm start`.

import type { Command } from 'commander';
import { resolve } from 'node:path';
import { loadValues } from '../engine/config/values.ts';

function fail(msg: string): never {
  process.stderr.write(`engine: ${msg}\n`);
  process.exit(1);
}

export function registerTokenCommand(program: Command): void {
  program
    .command('token')
    .description('mint a sandbox access token (signed with the sandbox identity provider key) for a user')
    .requiredOption('--sub <user>', 'user id (the subject claim)')
    .option('--ttl <seconds>', 'lifetime', '3600')
    .option('--env <name>', 'environment (sandbox only)', 'sandbox')
    .option('--values <dir>', 'values directory', 'values')
    .action(async (o: { sub: string; ttl: string; env: string; values: string }) => {
      if (!/^[A-Za-z0-9._@-]{1,128}$/.test(o.sub)) fail('--sub: 1-128 characters [A-Za-z0-9._@-]');
      const ttl = Number(o.ttl);
      if (!Number.isInteger(ttl) || ttl <= 0 || ttl > 86_400) fail('--ttl: whole seconds, 1 to 86400');
      // the identity provider (and its JWT library) loads only for this command
      const { signSandboxToken, SANDBOX_ISSUER, SANDBOX_AUDIENCE } = await import('./idp/index.ts');
      const values = loadValues({ dir: resolve(o.values), env: o.env, lenient: true });
      if (!values.environment.simulated)
        fail(`'${o.env}' is not a sandbox environment: real tokens come from your identity provider`);
      const issuer = values.keys.resolve('gateway-jwt-issuer')?.value ?? SANDBOX_ISSUER;
      const audience = values.keys.resolve('gateway-jwt-audience')?.value ?? SANDBOX_AUDIENCE;
      process.stdout.write((await signSandboxToken({ sub: o.sub, ttl, issuer, audience })) + '\n');
    });
}
