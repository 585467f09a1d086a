// The diagram model of a route, read from the route file itself: its source, its steps in order
// (choice branches, split and loop bodies nested), the vendor targets, direct routes and events
// they reach, and the on-exception handlers (those of the connector document of its folder when
// the route takes them). The browser draws it as SVG (console-ui/diagram.js).

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { STEP_KINDS } from '../steps/registry.ts';
import { PLACEHOLDER } from '../config/placeholders.ts';
import { applyParams, type Params } from '../dsl/route-instances.ts';

export interface GraphStep {
  /** the step kind (`to-http`, `choice`, ...) */
  kind: string;
  /** one line naming what it does */
  label: string;
  /** where it sits in the file (`steps[1]`), as span names and diagnostics say it */
  path: string;
  /** what it reaches outside the route */
  target?: { kind: 'vendor' | 'event' | 'route'; name: string };
  /** choice: one per `when` (and `otherwise`); split and loop: their body */
  branches?: { label: string; steps: GraphStep[] }[];
}

export interface RouteGraph {
  source: { kind: string; label: string };
  steps: GraphStep[];
  /** `from`: the connector document (clients.yaml) the handler is taken from, the route having none of its own */
  onException: { label: string; steps: GraphStep[]; template?: string; from?: string }[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? v as Obj : {});
/** the resolver of the graph being built (graphs are built synchronously, one at a time) */
let placeholders: (key: string) => string | undefined = () => undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string'
  ? v.replace(PLACEHOLDER, (m, k: string) => placeholders(k) ?? m)
  : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);
const short = (s: string, n = 60) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/**
 * The graph of the route in `file`; undefined when the file no longer parses (it changed on
 * disk). `value` resolves `{{property}}` placeholders in labels (masked by the caller).
 * `handlersFrom`: the connector document whose on-exception the route took (CompiledRoute);
 * `instance`: the parameters of this instance of a route template, applied as the load did.
 */
export function routeGraph(file: string, value: (key: string) => string | undefined = () => undefined, handlersFrom?: string, instance?: Params): RouteGraph | undefined {
  let doc: Obj;
  try { doc = obj(parse(readFileSync(file, 'utf8'))); } catch { return undefined; }
  if (instance) doc = obj(applyParams(doc, instance));
  placeholders = value;
  let handlers = doc['on-exception'];
  if (handlers === undefined && handlersFrom) {
    try { handlers = obj(parse(readFileSync(handlersFrom, 'utf8')))['on-exception']; } catch { /* changed on disk: none shown */ }
  }
  const from = doc['on-exception'] === undefined && handlersFrom ? { from: handlersFrom } : {};
  return {
    source: sourceOf(obj(doc.from)),
    steps: steps(doc.steps, 'steps'),
    onException: (Array.isArray(handlers) ? handlers : []).map((h, i) => {
      const x = obj(h);
      return {
        label: whenLabel(x.when),
        steps: steps(x.steps, `on-exception[${i}].steps`),
        ...(str(x.template) ? { template: str(x.template) } : {}),
        ...(x.problem ? { template: 'problem' } : {}),
        ...from,
      };
    }),
  };
}

function sourceOf(from: Obj): RouteGraph['source'] {
  const [kind, raw] = Object.entries(from)[0] ?? ['?', {}];
  const c = obj(raw);
  if (kind === 'http') return { kind, label: `${str(c.method) ?? 'POST'} ${str(c.path) ?? ''}` };
  if (kind === 'cron') return { kind, label: `cron ${str(c.schedule) ?? ''}` };
  if (kind === 'amqp') return { kind, label: `amqp ${str(c.queue) ?? str(obj(c.mapping).queue) ?? ''}`.trim() };
  return { kind, label: kind };
}

function whenLabel(when: unknown): string {
  if (when === undefined) return 'any error';
  if (typeof when === 'string') return short(when);
  return Object.entries(obj(when)).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : str(v) ?? '…'}`).join('; ');
}

function steps(list: unknown, at: string): GraphStep[] {
  return (Array.isArray(list) ? list : []).map((s, i) => step(obj(s), `${at}[${i}]`));
}

function step(s: Obj, path: string): GraphStep {
  // `if:` beside the kind: drawn as a choice with that one branch
  if (Object.keys(s).length === 2 && 'if' in s) {
    const { if: cond, ...rest } = s;
    return { kind: 'choice', path, label: 'if', branches: [{ label: short(str(cond) ?? '?', 40), steps: [step(rest, path)] }] };
  }
  const [kind, raw] = Object.entries(s)[0] ?? ['?', {}];
  // `transform: <file>`: the string stands for the kind's shorthand key
  const stands = typeof raw === 'string' ? STEP_KINDS.get(kind)?.shorthand : undefined;
  const c = stands ? { [stands]: raw } : obj(raw);
  switch (kind) {
    case 'to-http': {
      const name = str(c.name) ?? str(c.client) ?? 'vendor';
      return { kind, path, label: `${str(c.method) ?? 'GET'} ${short(str(c.path) ?? str(c.url) ?? '')}`, target: { kind: 'vendor', name } };
    }
    case 'to-eventhub':
      return { kind, path, label: short(str(c.type) ?? 'event'), target: { kind: 'event', name: str(c.topic) ?? str(c.type) ?? 'event hub' } };
    case 'to-direct':
      return { kind, path, label: `call ${str(c.route) ?? ''}`, target: { kind: 'route', name: str(c.route) ?? '?' } };
    case 'choice': {
      const when = Array.isArray(c.when) ? c.when : [];
      const branches = when.map((w, i) => {
        const x = obj(w);
        return { label: `${short(str(x.condition) ?? '?', 40)}${x.stop ? ' (stop)' : ''}`, steps: steps(x.steps, `${path}.choice.when[${i}].steps`) };
      });
      if (c.otherwise !== undefined) branches.push({ label: 'otherwise', steps: steps(c.otherwise, `${path}.choice.otherwise`) });
      return { kind, path, label: 'choice', branches };
    }
    case 'split':
      return { kind, path, label: `split ${short(str(c.items) ?? '', 40)}`, branches: [{ label: 'each item', steps: steps(c.steps, `${path}.split.steps`) }] };
    case 'loop':
      return { kind, path, label: `loop while ${short(str(c.while) ?? '', 40)}`, branches: [{ label: 'each pass', steps: steps(c.steps, `${path}.loop.steps`) }] };
    case 'validate':
      return { kind, path, label: `validate ${short(str(c.schema)?.split('/').pop() ?? (c.rules ? 'rules' : ''))}` };
    case 'transform':
      return { kind, path, label: `transform ${short(str(c.file)?.split('/').pop() ?? 'expression')}` };
    case 'fail':
      return { kind, path, label: `fail ${str(c.at) === 'load' ? 'at load ' : ''}${short(str(c.when) ?? '', 40)}`.trim() };
    default:
      return { kind, path, label: kind };
  }
}
