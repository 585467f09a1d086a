// from: direct — a route called in-process by another route (`to-direct`) or a gateway tool.

import { defineSource } from './source-kind.ts';

export default defineSource<Record<string, never>>({
  kind: 'direct',
  description: 'Makes the route callable in-process by its id (to-direct steps, gateway tools).',
  schema: { type: 'object', additionalProperties: false, properties: {} },
  compile() {
    return {};
  },
});
