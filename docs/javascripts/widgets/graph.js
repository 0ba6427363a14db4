// Draw a laid-out trace (node centres and edge paths from layout() in microgpt/course/diagrams.py) as SVG,
// and repaint it per step. During the backward pass the arrows turn round: grad flows from a node to its children.
import { h, svg } from "../dom.js";
import { fmt } from "./format.js";

/**
 * A trace of a small graph, as microgpt/course/trace.py records it and diagrams.py lays it out.
 * @typedef {object} TraceNode
 * @property {string} id  @property {string} label  @property {string} expr  @property {string} [op]
 * @property {number} data  @property {number} grad  @property {boolean} [const]  @property {boolean} [leaf]
 * @property {string[]} children  @property {number} x  @property {number} y
 * @typedef {object} TraceEdge
 * @property {string} node  @property {string} child  @property {number} index  @property {number} local_grad
 * @property {string} path  @property {number} lx  @property {number} ly
 * @typedef {{ node: string, child: string, index: number, local_grad: number, upstream: number, before: number, after: number }} BackwardStep
 * @typedef {object} Trace
 * @property {string} name  @property {string} title  @property {string} root
 * @property {TraceNode[]} nodes  @property {TraceEdge[]} edges
 * @property {string[]} forward  @property {string[]} topo  @property {BackwardStep[]} backward
 * @property {{ after: number }} seed
 * @property {Record<string, [number[], number[]]>} orders   the playground's replays, by visit order
 * @property {number} width  @property {number} height  @property {number} node_w  @property {number} node_h
 *
 * @typedef {{ g: SVGGElement, data: SVGTextElement, grad: SVGTextElement }} NodeView
 * @typedef {{ g: SVGGElement, path: SVGPathElement, label: SVGTextElement, edge: TraceEdge }} EdgeView
 * @typedef {{ svg: SVGSVGElement, nodeEls: Record<string, NodeView>, edgeEls: Record<string, EdgeView>, arrow: string, arrowActive: string }} GraphView
 * @typedef {object} PaintState
 * @property {Set<string>} data  @property {Record<string, number>} grad  @property {Set<string>} touched
 * @property {boolean} backward  @property {{ nodes: string[], edges: string[], visiting?: string }} active
 */

let uid = 0;

/** @param {string} id  @param {string} cls */
function marker(id, cls) {
  return svg(
    "marker",
    {
      id,
      viewBox: "0 0 10 10",
      refX: 10,
      refY: 5,
      markerWidth: 10,
      markerHeight: 10,
      markerUnits: "userSpaceOnUse",
      orient: "auto-start-reverse",
    },
    svg("path", { d: "M0,0L10,5L0,10z", class: cls }),
  );
}

/** @param {Trace} trace  @returns {GraphView} */
export function drawGraph(trace) {
  const id = `ag${++uid}`;
  const W = trace.node_w,
    H = trace.node_h;
  const nodes = Object.fromEntries(trace.nodes.map((n) => [n.id, n]));
  const picture = svg("svg", {
    class: "autograd-svg",
    width: trace.width,
    height: trace.height,
    viewBox: `0 0 ${trace.width} ${trace.height}`,
    role: "img",
    "aria-label": `Computation graph of ${trace.title}`,
  });
  picture.append(
    svg(
      "defs",
      {},
      marker(`${id}-arrow`, "ag-arrowhead"),
      marker(`${id}-arrow-active`, "ag-arrowhead ag-arrowhead--active"),
    ),
  );
  /** @type {Record<string, EdgeView>} */
  const edgeEls = {};
  /** @type {Record<string, NodeView>} */
  const nodeEls = {};
  for (const e of trace.edges) {
    const path = svg("path", { d: e.path, class: "ag-edge" });
    const label = svg("text", { x: e.lx, y: e.ly, "text-anchor": "middle", class: "ag-edge-label" }, "");
    const key = `${e.node}-${e.index}`;
    const g = svg(
      "g",
      { class: "ag-edge-group", "data-edge": key },
      svg("title", {}, `∂${nodes[e.node].label}/∂${nodes[e.child].label} = ${fmt(e.local_grad)}`),
      path,
      label,
    );
    edgeEls[key] = { g, path, label, edge: e };
    picture.append(g);
  }
  for (const n of trace.nodes) {
    const top = n.y - H / 2;
    const line = (/** @type {number} */ k, /** @type {string} */ cls, /** @type {string} */ s) =>
      svg("text", { x: n.x, y: top + 19 + 17 * k, "text-anchor": "middle", class: cls }, s);
    const data = line(1, "ag-data", ""),
      grad = line(2, "ag-grad", "");
    const badge = svg("text", { x: n.x - W / 2, y: top - 6, class: "ag-badge" }, "visiting");
    const g = svg(
      "g",
      { class: `ag-node-group${n.const ? " ag-const" : ""}`, "data-node": n.id },
      svg("rect", { x: n.x - W / 2, y: top, width: W, height: H, rx: 7, class: "ag-node" }),
      line(0, "ag-expr", n.const ? `${n.label} (constant)` : n.expr),
      data,
      grad,
      badge,
    );
    nodeEls[n.id] = { g, data, grad };
    picture.append(g);
  }
  return { svg: picture, nodeEls, edgeEls, arrow: `url(#${id}-arrow)`, arrowActive: `url(#${id}-arrow-active)` };
}

// state: {data: Set of computed ids, grad: {id: number}, touched: Set, backward: bool,
//         active: {nodes: [], edges: [], visiting: id}}
/** @param {GraphView} view  @param {Trace} trace  @param {PaintState} state */
export function paint(view, trace, state) {
  for (const n of trace.nodes) {
    const el = view.nodeEls[n.id];
    const has = state.data.has(n.id);
    el.data.textContent = has ? `data ${fmt(n.data)}` : "data ·";
    el.grad.textContent = has ? `grad ${fmt(state.grad[n.id])}` : "grad ·";
    el.grad.classList.toggle("ag-grad--set", state.touched.has(n.id));
    el.g.classList.toggle("ag-pending", !has);
    el.g.classList.toggle("ag-active", state.active.nodes.includes(n.id));
    el.g.classList.toggle("ag-visiting", state.active.visiting === n.id);
  }
  view.svg.classList.toggle("ag-backward", Boolean(state.backward));
  for (const [key, el] of Object.entries(view.edgeEls)) {
    const active = state.active.edges.includes(key);
    el.label.textContent = state.data.has(el.edge.node) ? fmt(el.edge.local_grad) : "";
    el.g.classList.toggle("ag-active", active);
    // forward: the arrowhead at the node the child feeds; backward: at the child the grad goes to
    const head = active ? view.arrowActive : view.arrow;
    el.path.setAttribute(state.backward ? "marker-start" : "marker-end", head);
    el.path.removeAttribute(state.backward ? "marker-end" : "marker-start");
    el.g.dataset.flow = state.backward ? "backward" : "forward";
  }
}

// A trace computed by Python for new leaf values has the same nodes and edges as the one the build
// laid out; it takes over that layout (positions only; every number comes from the new trace).
/** @param {Trace} fresh  @param {Trace} laid  @returns {Trace} */
export function withLayout(fresh, laid) {
  const pos = Object.fromEntries(laid.nodes.map((n) => [n.id, n]));
  const geo = Object.fromEntries(laid.edges.map((e) => [`${e.node}-${e.index}`, e]));
  const same =
    fresh.nodes.length === laid.nodes.length &&
    fresh.edges.length === laid.edges.length &&
    fresh.nodes.every((n) => pos[n.id]) &&
    fresh.edges.every((e) => geo[`${e.node}-${e.index}`]);
  if (!same) throw new Error(`the trace for ${fresh.name} does not have the graph this widget drew`);
  return {
    ...fresh,
    width: laid.width,
    height: laid.height,
    node_w: laid.node_w,
    node_h: laid.node_h,
    nodes: fresh.nodes.map((n) => ({ ...n, x: pos[n.id].x, y: pos[n.id].y })),
    edges: fresh.edges.map((e) => {
      const g = geo[`${e.node}-${e.index}`];
      return { ...e, path: g.path, lx: g.lx, ly: g.ly };
    }),
  };
}

// What the pictures mean; the same words under every graph.
/** @param {HTMLElement[]} [extra] */
export function legend(extra = []) {
  const item = (/** @type {string} */ cls, /** @type {string} */ key, /** @type {string} */ text) =>
    h("li", {}, h("span", { class: `ag-key ${cls}`, "aria-hidden": "true" }, key), " ", text);
  return h(
    "ul",
    { class: "autograd-legend", "aria-label": "Legend" },
    item("ag-key--const", "", "dashed box: a constant the op made for a plain number"),
    item("ag-key--active", "", "thick box and arrow: what this step changed"),
    item("ag-key--tag", "visiting", "the node whose children receive grad now"),
    item(
      "ag-key--arrow",
      "→ ←",
      "arrows point the way values flow: data to the parent, then grad back to the children",
    ),
    ...extra,
  );
}
