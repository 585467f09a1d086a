// The diagram model of a route, read from the route file itself: its source, its steps in order
// (choice branches, split and loop bodies nested), the vendor targets, direct routes and events
// they reach, and the on-exception handlers (those of the connector document of its folder when
// the route takes them). The browser draws it as SVG (console-ui/diagram.js). Each step kind
// draws its own node (its StepKind's `graph`); no step kind is named here.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { STEP_KINDS } from '../steps/registry.ts';
import { guardNode } from '../steps/guard.ts';
import type { GraphContext, GraphNode } from '../steps/step-kind.ts';
import { PLACEHOLDER } from '../config/placeholders.ts';
import { applyParams, type Params } from '../dsl/route-instances.ts';

/** A step as drawn: its kind's `graph` hook gives the label, target and branches. */
export type GraphStep = GraphNode;

export interface RouteGraph {
  source: { kind: string; label: string };
  steps: GraphStep[];
  /** `from`: the connector document (connector.yaml) the handler is taken from, the route having none of its own */
  onException: { label: string; steps: GraphStep[]; template?: string; from?: string }[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
/** a value as written as text, its placeholders resolved by `value` */
type Text = (v: unknown) => string | undefined;
const textOf =
  (value: (key: string) => string | undefined): Text =>
  (v) =>
    typeof v === 'string'
      ? v.replace(PLACEHOLDER, (m, k: string) => value(k) ?? m)
      : typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : undefined;
const short = (s: string, n = 60) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/**
 * The graph of the route in `file`; undefined when the file no longer parses (it changed on
 * disk). `value` resolves `{{property}}` placeholders in labels (masked by the caller).
 * `handlersFrom`: the connector document whose on-exception the route took (CompiledRoute);
 * `instance`: the parameters of this instance of a route template, applied as the load did.
 */
export function routeGraph(
  file: string,
  value: (key: string) => string | undefined = () => undefined,
  handlersFrom?: string,
  instance?: Params,
): RouteGraph | undefined {
  let doc: Obj;
  try {
    doc = obj(parse(readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
  if (instance) doc = obj(applyParams(doc, instance));
  const str = textOf(value);
  let handlers = doc['on-exception'];
  if (handlers === undefined && handlersFrom) {
    try {
      handlers = obj(parse(readFileSync(handlersFrom, 'utf8')))['on-exception'];
    } catch {
      /* changed on disk: none shown */
    }
  }
  const from = doc['on-exception'] === undefined && handlersFrom ? { from: handlersFrom } : {};
  return {
    source: sourceOf(obj(doc.from), str),
    steps: steps(doc.steps, 'steps', str),
    onException: (Array.isArray(handlers) ? handlers : []).map((h, i) => {
      const x = obj(h);
      return {
        label: whenLabel(x.when, str),
        steps: steps(x.steps, `on-exception[${i}].steps`, str),
        ...(str(x.template) ? { template: str(x.template) } : {}),
        ...(x.problem ? { template: 'problem' } : {}),
        ...from,
      };
    }),
  };
}

function sourceOf(from: Obj, str: Text): RouteGraph['source'] {
  const [kind, raw] = Object.entries(from)[0] ?? ['?', {}];
  const c = obj(raw);
  if (kind === 'http') return { kind, label: `${str(c.method) ?? 'POST'} ${str(c.path) ?? ''}` };
  if (kind === 'cron') return { kind, label: `cron ${str(c.schedule) ?? ''}` };
  if (kind === 'amqp') return { kind, label: `amqp ${str(c.queue) ?? str(obj(c.mapping).queue) ?? ''}`.trim() };
  return { kind, label: kind };
}

function whenLabel(when: unknown, str: Text): string {
  if (when === undefined) return 'any error';
  if (typeof when === 'string') return short(when);
  return Object.entries(obj(when))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : (str(v) ?? '…')}`)
    .join('; ');
}

function steps(list: unknown, at: string, str: Text): GraphStep[] {
  return (Array.isArray(list) ? list : []).map((s, i) => step(obj(s), `${at}[${i}]`, str));
}

function step(s: Obj, path: string, str: Text): GraphStep {
  // `if:` beside the kind: drawn as a choice with that one branch
  if (Object.keys(s).length === 2 && 'if' in s) {
    const { if: cond, ...rest } = s;
    return guardNode(path, short(str(cond) ?? '?', 40), step(rest, path, str));
  }
  const [kind, raw] = Object.entries(s)[0] ?? ['?', {}];
  const sk = STEP_KINDS.get(kind);
  // `transform: <file>`: the string stands for the kind's shorthand key
  const stands = typeof raw === 'string' ? sk?.shorthand : undefined;
  const c = stands ? { [stands]: raw } : obj(raw);
  if (!sk?.graph) return { kind, path, label: kind };
  const g: GraphContext = { text: str, short, steps: (list, at) => steps(list, `${path}.${kind}.${at}`, str) };
  return { kind, path, ...sk.graph(c, g) };
}
