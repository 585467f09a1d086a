// The one entry of the build (build/bundle.mjs -> dist/engine.cjs): what bin/engine.js runs, the
// engine and the embedded sandbox, which plugs into it as an extension.
export { main } from '../engine/cli/main.ts';
export { sandboxExtension } from '../sandbox/extension.ts';
