#!/usr/bin/env node
// CLI entry. Loads the TypeScript sources through tsx's loader so that a fresh clone runs
// without a build step; the loader compiles each module once at start-up, never per request.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../engine/cli/main.ts');
// the product: the engine library plus the embedded sandbox, which plugs in as an extension
const { sandboxExtension } = await import('../sandbox/extension.ts');
await main(process.argv, [sandboxExtension()]);
