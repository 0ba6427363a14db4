// Visit-order playground for the diamond. Running an order replays the engine's own rule,
// child.grad += local_grad * node.grad, with the local grads the engine recorded in the trace.
import { fmt, h, readJSON } from "./format.js";
import { drawGraph, paint } from "./graph.js";

// the same loop as microgpt.trace.replay (tests/test_browser.py checks they agree)
export function replay(t, order) {
  const grad = Object.fromEntries(t.nodes.map((n) => [n.id, 0]));
  const seen = {};  // each node's grad at the moment it was visited
  grad[t.root] = 1;
  for (const id of order) {
    seen[id] = grad[id];
    for (const e of t.edges) if (e.node === id) grad[e.child] += e.local_grad * grad[id];
  }
  return { grad, seen };
}

// which visits pushed too early, and what they cost the target leaf
export function lostPaths(t, order, target) {
  const N = Object.fromEntries(t.nodes.map((n) => [n.id, n]));
  const { seen } = replay(t, order);
  const out = [];
  for (const e of t.edges) {
    if (e.child !== target || seen[e.node] === N[e.node].grad) continue;
    const late = t.edges.filter((u) => u.child === e.node && order.indexOf(u.node) > order.indexOf(e.node)).map((u) => u.node);
    out.push({ via: e.node, late, got: e.local_grad * seen[e.node], want: e.local_grad * N[e.node].grad });
  }
  return out;
}

export function mountPlayground(root) {
  const t = readJSON(root, "trace");
  const N = Object.fromEntries(t.nodes.map((n) => [n.id, n]));
  const target = t.forward[0];  // a, the leaf whose gradient we want
  const movable = t.forward.filter((id) => !N[id].const);
  const right = N[target].grad;
  let order = [];
  const view = drawGraph(t);
  const placed = h("span", { class: "autograd-order", role: "list", "aria-label": "Visit order, first to last" });
  const pool = h("div", { class: "autograd-pool" });
  const result = h("p", { class: "autograd-result", role: "status", "aria-live": "polite", "data-role": "result" });
  const run = h("button", { type: "button", class: "md-button md-button--primary", "data-action": "run", onclick: () => go() }, "Run backward in this order");
  const undo = h("button", { type: "button", class: "md-button", "data-action": "undo", onclick: () => { order.pop(); show(); } }, "Undo");
  const clear = h("button", { type: "button", class: "md-button", "data-action": "clear", onclick: () => { order = []; show(); } }, "Clear");
  const engine = h("button", {
    type: "button", class: "md-button", "data-action": "engine-order",
    onclick: () => { order = [...t.topo].reverse().filter((id) => movable.includes(id)); show(); },
  }, "Use the engine's order");

  function fresh() {
    return { data: new Set(t.nodes.map((n) => n.id)), grad: Object.fromEntries(t.nodes.map((n) => [n.id, 0])), touched: new Set(), active: { nodes: [], edges: [] } };
  }
  function show() {
    placed.replaceChildren(...order.map((id, i) => h("span", { role: "listitem", class: "autograd-chip" }, `${i + 1}. ${N[id].expr}`)));
    pool.replaceChildren(...movable.filter((id) => !order.includes(id)).map((id) =>
      h("button", { type: "button", class: "md-button", "data-place": id, onclick: () => { order.push(id); show(); } }, `place ${N[id].label}`)));
    run.disabled = order.length !== movable.length;
    undo.disabled = clear.disabled = order.length === 0;
    result.textContent = order.length === movable.length ? "Press Run." : `Place ${movable.length - order.length} more node(s).`;
    delete root.dataset.result;
    paint(view, t, fresh());
  }
  function go() {
    const { grad } = replay(t, order);
    const s = fresh();
    s.grad = grad;
    s.touched = new Set(order.flatMap((id) => t.edges.filter((e) => e.node === id).map((e) => e.child)).concat([t.root]));
    s.active = { nodes: [target], edges: [] };
    paint(view, t, s);
    const got = grad[target];
    root.dataset.result = String(got);
    const a = N[target].label;
    if (got === right) {
      result.textContent = `${a}.grad = ${fmt(got)}, the right answer: every node was visited after all the nodes that push into it, ` +
        "so each one passed on its complete gradient (a reverse topological order).";
      return;
    }
    const lost = lostPaths(t, order, target).map((p) => {
      const from = p.late.map((u) => N[u].label).join(" and ");
      return `the path ${[t.root, p.via, target].map((id) => N[id].label).join(" → ")} delivered ${fmt(p.got)} instead of ${fmt(p.want)}, ` +
        `because ${N[p.via].label} was visited before ${from} pushed into it`;
    });
    result.textContent = `${a}.grad = ${fmt(got)}, not ${fmt(right)}: ${lost.join("; ")}. ` +
      `The += on ${a} is fine; the order is not. (Visiting a leaf such as ${a} pushes nothing, so its place does not matter.)`;
  }
  root.replaceChildren(
    h("p", { class: "autograd-help" }, `Seed ${N[t.root].label}.grad = 1, then visit the nodes in the order you place them; ` +
      "each visit runs child.grad += local · node.grad for its children. The constants 1 and 3 are leaves and push nothing, so they are left out."),
    view.svg,
    h("div", { class: "autograd-controls" }, h("span", {}, "Click to place: "), pool),
    h("div", { class: "autograd-controls" }, h("span", {}, "Visit order: "), placed),
    h("div", { class: "autograd-controls" }, run, undo, clear, engine),
    result);
  show();
}
