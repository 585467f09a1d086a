// A route drawn as SVG from its graph (engine/console/route-graph.ts): the source on top, the
// steps downwards, each vendor call, direct route and event to the right of its step, choice
// branches side by side, split and loop bodies framed, on-exception handlers in a column of
// their own (those taken from the connector document are labelled with its file). Each step links
// to its source: the .jsonata it runs, else its line of the route file. The layout is computed
// here, boxes as wide as their longest label (nothing is cut); nothing is measured in the DOM.
import { html } from './html.js';

const BH = 30; // box height
const GAP = 16; // vertical gap between boxes
const TGAP = 26; // gap between a step and its target
const LABEL = 18; // branch label height
const PAD = 10; // frame padding
/** widest character of the 12 px (boxes) and 11 px (branch and handler labels) system font, px */
const CH = 7.4;
const CH_SMALL = 6.8;
/** widths at least: step boxes, target boxes */
const MIN_BW = 280;
const MIN_TW = 180;

/** Box widths for a route: every step box as wide as the longest step label, targets likewise. */
let BW = MIN_BW;
let TW = MIN_TW;
const fit = (text, min) => Math.max(min, Math.ceil(text.length * CH) + 16);

/** `#/routes/<id>?source=<file>&line=<n>`: the route page with that file open at that line */
const sourceHref = (route, src) =>
  `#/routes/${encodeURIComponent(route)}?source=${encodeURIComponent(src.file)}&line=${src.line}`;

/** A box with its text; a link to `href` when given. */
function box(x, y, w, cls, text, title, extra = {}, href = /** @type {string | undefined} */ (undefined)) {
  const g = html`<g class=${`node ${cls}`} ...${extra}>
    <title>${title ?? text}</title>
    <rect x=${x} y=${y} width=${w} height=${BH} rx="5" />
    <text x=${x + 8} y=${y + BH / 2 + 4}>${text}</text>
  </g>`;
  return href ? html`<a href=${href} class="source-link">${g}</a>` : g;
}

/** The labels of every step of a list, nested ones included; and of their targets. */
function labels(steps, out = { steps: /** @type {string[]} */ ([]), targets: /** @type {string[]} */ ([]) }) {
  for (const s of steps) {
    out.steps.push(s.label);
    if (s.target) out.targets.push(s.target.name);
    for (const b of s.branches ?? []) labels(b.steps, out);
  }
  return out;
}

const arrow = (x1, y1, x2, y2) =>
  html`<line class="edge" x1=${x1} y1=${y1} x2=${x2} y2=${y2} marker-end="url(#arrow)" />`;

/** A list of steps: { w, h, draw(x, y) }. */
function list(steps, route) {
  const items = steps.map((s) => one(s, route));
  const w = Math.max(BW, ...items.map((i) => i.w));
  const h = items.reduce((a, i) => a + i.h, 0) + GAP * Math.max(0, items.length - 1);
  return {
    w,
    h,
    draw(x, y) {
      const out = [];
      let at = y;
      items.forEach((i, n) => {
        if (n > 0) out.push(arrow(x + BW / 2, at - GAP, x + BW / 2, at - 2));
        out.push(...i.draw(x, at));
        at += i.h + GAP;
      });
      return out;
    },
  };
}

function one(s, route) {
  const href = s.source ? sourceHref(route, s.source) : undefined;
  const where = s.source ? ` (${s.source.file}${s.source.line > 1 ? `:${s.source.line}` : ''})` : '';
  if (!s.branches) {
    const w = BW + (s.target ? TGAP + TW : 0);
    return {
      w,
      h: BH,
      draw(x, y) {
        const out = [
          box(x, y, BW, `step ${s.kind}`, s.label, `${s.path}: ${s.label}${where}`, { 'data-path': s.path }, href),
        ];
        if (s.target) {
          const tx = x + BW + TGAP;
          out.push(arrow(x + BW, y + BH / 2, tx - 2, y + BH / 2));
          out.push(
            box(tx, y, TW, `target ${s.target.kind}`, s.target.name, `${s.target.kind}: ${s.target.name}`, {
              'data-target': s.target.name,
            }),
          );
        }
        return out;
      },
    };
  }
  const cols = s.branches.map((b) => {
    const l = list(b.steps.length ? b.steps : [{ kind: 'empty', label: '(nothing)', path: '' }], route);
    // a column as wide as its label: the label is never cut
    return { label: b.label, l: { ...l, w: Math.max(l.w, Math.ceil(b.label.length * CH_SMALL) + 8) } };
  });
  const inner = cols.reduce((a, c) => a + c.l.w, 0) + GAP * 2 * (cols.length - 1);
  const w = Math.max(BW, inner + PAD * 2);
  const bodyH = Math.max(...cols.map((c) => c.l.h));
  const h = BH + GAP + LABEL + bodyH + PAD;
  return {
    w,
    h,
    draw(x, y) {
      const out = [
        html`<rect
          class=${`frame ${s.kind}`}
          x=${x - 4}
          y=${y + BH / 2}
          width=${w + 8}
          height=${h - BH / 2 + 4}
          rx="8"
        />`,
      ];
      out.push(
        box(x, y, BW, `step ${s.kind}`, s.label, `${s.path}: ${s.label}${where}`, { 'data-path': s.path }, href),
      );
      let cx = x + PAD;
      for (const c of cols) {
        const top = y + BH + GAP + LABEL;
        out.push(html`<text class="branch-label" x=${cx} y=${top - 6}><title>${c.label}</title>${c.label}</text>`);
        out.push(arrow(x + BW / 2, y + BH, cx + BW / 2, top - LABEL + 2));
        out.push(...c.l.draw(cx, top));
        cx += c.l.w + GAP * 2;
      }
      return out;
    },
  };
}

/** The SVG of a route graph. */
export function RouteDiagram({ graph, route }) {
  if (!graph) return html`<p class="muted">The route file could not be read to draw it.</p>`;
  // a handler without steps of its own answers through its template: drawn as one box
  const handlerSteps = graph.onException.map((hd) =>
    hd.steps.length
      ? hd.steps
      : [
          {
            kind: 'template',
            label: hd.template ? `map with ${hd.template.split('/').pop()}` : 'answer the error',
            path: '',
          },
        ],
  );
  const all = labels([...graph.steps, ...handlerSteps.flat()]);
  BW = Math.max(fit(graph.source.label, MIN_BW), ...all.steps.map((l) => fit(l, MIN_BW)));
  TW = Math.max(MIN_TW, ...all.targets.map((l) => fit(l, MIN_TW)));
  const main = list(graph.steps, route);
  const handlerLabel = (hd) => `on-exception: ${hd.label}${hd.from ? ` (from ${hd.from.split('/').pop()})` : ''}`;
  const handlers = graph.onException.map((hd, i) => ({ hd, l: list(handlerSteps[i], route) }));
  const mainW = Math.max(BW, main.w);
  const handlersX = mainW + 60;
  const handlersW = handlers.length
    ? Math.max(...handlers.map((x) => Math.max(x.l.w, Math.ceil(handlerLabel(x.hd).length * CH_SMALL))))
    : 0;
  let hy = 0;
  const hLayout = handlers.map((x) => {
    const at = hy;
    hy += LABEL + x.l.h + GAP * 2;
    return { ...x, at };
  });
  const width = (handlers.length ? handlersX + handlersW : mainW) + 20;
  const height = Math.max(BH + GAP + main.h, hy + LABEL) + 20;
  return html`<svg
    class="diagram"
    data-route=${route}
    viewBox=${`-10 -10 ${width + 10} ${height + 10}`}
    width=${width + 10}
    height=${height + 10}
    role="img"
    aria-label=${`diagram of route ${route}`}
  >
    <defs>
      <marker
        id="arrow"
        viewBox="0 0 10 10"
        refX="9"
        refY="5"
        markerWidth="7"
        markerHeight="7"
        orient="auto-start-reverse"
      >
        <path d="M 0 0 L 10 5 L 0 10 z" />
      </marker>
    </defs>
    ${box(0, 0, BW, `source ${graph.source.kind}`, graph.source.label, `from ${graph.source.kind}: ${graph.source.label}`, {}, graph.source.line ? sourceHref(route, graph.source) : undefined)}
    ${graph.steps.length ? arrow(BW / 2, BH, BW / 2, BH + GAP - 2) : null} ${main.draw(0, BH + GAP)}
    ${hLayout.map(
      (x) =>
        html` <text class="handler-label" x=${handlersX} y=${x.at + 12}>${handlerLabel(x.hd)}</text>
          ${x.l.draw(handlersX, x.at + LABEL)}`,
    )}
  </svg>`;
}
