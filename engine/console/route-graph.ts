// The diagram model of a route, read from the route file itself: its source, its steps in order
// (choice branches, split and loop bodies nested), the vendor targets, direct routes and events
// they reach, and the on-exception handlers (those of the connector document of its folder when
// the route takes them). The browser draws it as SVG (console-ui/diagram.js). Each step kind
// draws its own node (its StepKind's `graph`); no step kind is named here.

import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { isScalar, LineCounter, parseDocument, type Document, type YAMLMap } from 'yaml';
import { STEP_KINDS } from '../steps/registry.ts';
import { guardNode } from '../steps/guard.ts';
import type { GraphContext, GraphNode } from '../steps/step-kind.ts';
import { PLACEHOLDER } from '../config/placeholders.ts';
import { applyParams, type Params } from '../dsl/route-instances.ts';
import { stepFile } from '../core/step-file.ts';

/** A step as drawn: its kind's `graph` hook gives the label, target and branches. */
export type GraphStep = GraphNode;

export interface RouteGraph {
  /** `file` and `line`: where the route says it (the `from:` line of its file) */
  source: { kind: string; label: string; file?: string; line?: number };
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
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A YAML file with the line of each node, by the path the graph gives a step (`steps[2].choice.when[0]`). */
function readYaml(file: string): { doc: Obj; lineOf(path: string): number | undefined } {
  const lines = new LineCounter();
  const d: Document = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines });
  if (d.errors.length) throw d.errors[0];
  return {
    doc: obj(d.toJS()),
    lineOf(path) {
      const keys = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
      const last = keys.at(-1);
      // a key's own line (`from:`), an item's where it starts (`- set:`)
      const node =
        typeof last === 'string'
          ? (d.getIn(keys.slice(0, -1), true) as YAMLMap | undefined)?.items?.find(
              (p) => isScalar(p.key) && p.key.value === last,
            )?.key
          : d.getIn(keys, true);
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      return range ? lines.linePos(range[0]).line : undefined;
    },
  };
}

/**
 * The graph of the route in `file`; undefined when the file no longer parses (it changed on
 * disk). `value` resolves `{{property}}` placeholders in labels (masked by the caller).
 * `handlersFrom`: the connector document whose on-exception the route took (CompiledRoute);
 * `instance`: the parameters of this instance of a route template, applied as the load did.
 * Each step's `source` is where the console opens it, relative to `root`.
 */
export function routeGraph(
  file: string,
  value: (key: string) => string | undefined = () => undefined,
  handlersFrom?: string,
  instance?: Params,
  root = process.cwd(),
): RouteGraph | undefined {
  let yaml: ReturnType<typeof readYaml>;
  try {
    yaml = readYaml(file);
  } catch {
    return undefined;
  }
  let doc = yaml.doc;
  if (instance) doc = obj(applyParams(doc, instance));
  const str = textOf(value);
  let handlers = doc['on-exception'];
  let handlersYaml = yaml;
  if (handlers === undefined && handlersFrom) {
    try {
      handlersYaml = readYaml(handlersFrom);
      handlers = handlersYaml.doc['on-exception'];
    } catch {
      /* changed on disk: none shown */
    }
  }
  const from = doc['on-exception'] === undefined && handlersFrom ? { from: handlersFrom } : {};
  const rel = (f: string) => relative(root, f);
  /** each step opens at its file (a transform's .jsonata), else at its line of the YAML it is written in */
  const place = (nodes: GraphStep[], yamlFile: string, y: typeof yaml): GraphStep[] =>
    nodes.map((n) => {
      const line = y.lineOf(n.path);
      const source = n.file
        ? { file: rel(stepFile(n.file, file, root)), line: 1 }
        : line === undefined
          ? undefined
          : { file: rel(yamlFile), line };
      return {
        ...n,
        ...(source ? { source } : {}),
        ...(n.branches ? { branches: n.branches.map((b) => ({ ...b, steps: place(b.steps, yamlFile, y) })) } : {}),
      };
    });
  const fromLine = yaml.lineOf('from');
  return {
    source: { ...sourceOf(obj(doc.from), str), file: rel(file), ...(fromLine ? { line: fromLine } : {}) },
    steps: place(steps(doc.steps, 'steps', str), file, yaml),
    onException: (Array.isArray(handlers) ? handlers : []).map((h, i) => {
      const x = obj(h);
      return {
        label: whenLabel(x.when, str),
        steps: place(
          steps(x.steps, `on-exception[${i}].steps`, str),
          handlersFrom && from.from ? handlersFrom : file,
          handlersYaml,
        ),
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
  if (typeof when === 'string') return oneLine(when);
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
    return guardNode(path, oneLine(str(cond) ?? '?'), step(rest, path, str));
  }
  const [kind, raw] = Object.entries(s)[0] ?? ['?', {}];
  const sk = STEP_KINDS.get(kind);
  // `transform: <file>`: the string stands for the kind's shorthand key
  const stands = typeof raw === 'string' ? sk?.shorthand : undefined;
  const c = stands ? { [stands]: raw } : obj(raw);
  if (!sk?.graph) return { kind, path, label: kind };
  const g: GraphContext = { text: str, oneLine, steps: (list, at) => steps(list, `${path}.${kind}.${at}`, str) };
  return { kind, path, ...sk.graph(c, g) };
}
