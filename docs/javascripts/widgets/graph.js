// Draw a trace (nodes with x, y from the build; edges with local grads) as SVG, and update it per step.
import { fmt, h } from "./format.js";

const W = 124, H = 56;
let uid = 0;

export function drawGraph(trace) {
  const id = `ag${++uid}`;
  const nodes = Object.fromEntries(trace.nodes.map((n) => [n.id, n]));
  const svg = h("svg", {
    class: "autograd-svg", viewBox: `0 0 ${trace.width} ${trace.height}`, role: "img",
    "aria-label": `Computation graph of ${trace.title}`,
  });
  svg.append(h("defs", {}, h("marker", {
    id: `${id}-arrow`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
    orient: "auto-start-reverse",
  }, h("path", { d: "M0,0L10,5L0,10z", class: "ag-arrowhead" }))));
  const edgeEls = {}, nodeEls = {};
  // several edges between the same pair (a · a) are bent apart
  const pairs = {};
  for (const e of trace.edges) (pairs[`${e.node}|${e.child}`] ??= []).push(e);
  for (const e of trace.edges) {
    const a = nodes[e.child], b = nodes[e.node];
    const same = pairs[`${e.node}|${e.child}`];
    const bend = same.length > 1 ? (same.indexOf(e) - (same.length - 1) / 2) * 44 : 0;
    const x1 = a.x + W / 2, y1 = a.y, x2 = b.x - W / 2, y2 = b.y;
    const mx = (x1 + x2) / 2, my = (y1 + y2) / 2 + bend;
    const path = h("path", {
      d: `M${x1},${y1} Q${mx},${my + bend} ${x2},${y2}`, class: "ag-edge", "marker-end": `url(#${id}-arrow)`,
    });
    const label = h("text", { x: mx, y: my - 5, "text-anchor": "middle", class: "ag-edge-label" }, "");
    const g = h("g", { class: "ag-edge-group", "data-edge": `${e.node}-${e.index}` },
      h("title", {}, `∂${nodes[e.node].label}/∂${a.label} = ${fmt(e.local_grad)}`), path, label);
    edgeEls[`${e.node}-${e.index}`] = { g, label, edge: e };
    svg.append(g);
  }
  for (const n of trace.nodes) {
    const top = n.y - H / 2;
    const data = h("text", { x: n.x, y: top + 33, "text-anchor": "middle", class: "ag-data" }, "");
    const grad = h("text", { x: n.x, y: top + 49, "text-anchor": "middle", class: "ag-grad" }, "");
    const g = h("g", { class: `ag-node-group${n.const ? " ag-const" : ""}`, "data-node": n.id },
      h("rect", { x: n.x - W / 2, y: top, width: W, height: H, rx: 8, class: "ag-node" }),
      h("text", { x: n.x, y: top + 16, "text-anchor": "middle", class: "ag-expr" }, n.const ? `${n.label} (constant)` : n.expr),
      data, grad);
    nodeEls[n.id] = { g, data, grad };
    svg.append(g);
  }
  return { svg, nodeEls, edgeEls };
}

// state: {data: Set of computed ids, grad: {id: number}, touched: Set, active: {nodes: [], edges: []}}
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
  for (const [key, el] of Object.entries(view.edgeEls)) {
    el.label.textContent = state.data.has(el.edge.node) ? fmt(el.edge.local_grad) : "";
    el.g.classList.toggle("ag-active", state.active.edges.includes(key));
  }
}
