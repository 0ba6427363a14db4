// Visit-order playground. The reader places the nodes in an order; the playground judges whether it
// is a reverse topological order (every node visited before its children, i.e. after all of its
// parents) and shows what the engine's rule, child.grad += local_grad * node.grad, gives in
// that order. Those grads were computed in Python for every order (trace.orders, from
// autograd_trace.with_orders); the page only looks them up.
import { h } from "../dom.js";
import { fmt, keepFocus, readJSON, watchScroll } from "./format.js";
import { drawGraph, legend, paint, withLayout } from "./graph.js";
import { leafEditor } from "./leaves.js";

// Is `order` a reverse topological order of the placed nodes? Returns the edges it breaks.
/** @typedef {import("./graph.js").Trace} Trace  @typedef {import("./graph.js").GraphView} GraphView */

/** @param {Trace} t  @param {string[]} order */
export function judge(t, order) {
  const pos = Object.fromEntries(order.map((id, i) => [id, i]));
  return t.edges.filter((e) => e.child in pos && pos[e.child] < pos[e.node]);
}

// The looked-up replay: every node's grad at the end, and what each node held when it was visited.
/** @param {Trace} t  @param {string[]} order */
export function lookup(t, order) {
  const [grads, seen] = t.orders[order.join(",")];
  return {
    grad: Object.fromEntries(t.nodes.map((n, i) => [n.id, grads[i]])),
    seen: Object.fromEntries(order.map((id, i) => [id, seen[i]])),
  };
}

// right and wrong differ in icon, words and colour, not in colour alone
/** @param {boolean} ok  @param {string} lead  @param {string} text */
function verdict(ok, lead, text) {
  return h(
    "p",
    { class: `ag-verdict ag-verdict--${ok ? "ok" : "bad"}` },
    h("span", { class: "ag-icon", "aria-hidden": "true" }, ok ? "✓" : "✗"),
    " ",
    h("strong", {}, `${lead}: `),
    text,
  );
}

/** @param {HTMLElement} root */
export function mountPlayground(root) {
  /** @type {Trace} */
  const original = readJSON(root, "trace");
  let t = original;
  /** @type {Record<string, import("./graph.js").TraceNode>} */
  let N = {};
  /** @type {string[]} */
  let movable = [];
  let target = "";
  /** @type {GraphView} */
  let view;
  /** @type {string[]} */
  let order = [];
  const stage = h("div", { class: "autograd-scroll" });
  const placed = h("ol", { class: "autograd-order", "aria-label": "Visit order, first to last" });
  const pool = h("div", { class: "autograd-pool", role: "group", "aria-label": "Nodes still to place" });
  const result = h("div", { class: "autograd-result", role: "status", "aria-live": "polite", "data-role": "result" });
  const act = (/** @type {() => void} */ fn, /** @type {() => (HTMLButtonElement | null)[]} */ preferred) => () => {
    fn();
    keepFocus(root, preferred());
  };
  const run = h(
    "button",
    { type: "button", class: "ag-btn ag-btn--primary", "data-action": "run", onclick: () => go() },
    "Run backward in this order",
  );
  const undo = h("button", { type: "button", class: "ag-btn", "data-action": "undo" }, "Undo");
  const clear = h("button", { type: "button", class: "ag-btn", "data-action": "clear" }, "Clear");
  const engine = h(
    "button",
    { type: "button", class: "ag-btn", "data-action": "engine-order" },
    "Use the engine's order",
  );
  const firstPlace = () => [pool.querySelector("button"), run];
  undo.addEventListener(
    "click",
    act(() => {
      order.pop();
      show();
    }, firstPlace),
  );
  clear.addEventListener(
    "click",
    act(() => {
      order = [];
      show();
    }, firstPlace),
  );
  engine.addEventListener(
    "click",
    act(
      () => {
        order = [...t.topo].reverse().filter((id) => movable.includes(id));
        show();
      },
      () => [run],
    ),
  );
  const help = h("p", { class: "autograd-help" });
  const editor = leafEditor(root, {
    preset: () => t.name,
    onTrace: (fresh) => load(withLayout(fresh, original)),
    onOriginal: () => load(original),
    onBusy: (busy) => root.toggleAttribute("data-stale", busy), // extra.css fades the old numbers
  });

  /** @param {Trace} trace */
  function load(trace) {
    const shown = root.dataset.result !== undefined;
    t = trace;
    N = Object.fromEntries(t.nodes.map((n) => [n.id, n]));
    movable = t.forward.filter((id) => !N[id].const);
    target = t.forward[0]; // the first leaf: the gradient the order decides
    const consts = t.nodes.filter((n) => n.const).map((n) => n.label);
    help.textContent =
      `Seed ${N[t.root].label}.grad = 1, then visit the nodes in the order you place them; each visit runs ` +
      `child.grad += local · node.grad for the node's children.` +
      (consts.length
        ? ` The constants ${consts.join(", ")} are leaves the ops made; they have no children, so they are left out.`
        : "");
    view = drawGraph(t);
    stage.replaceChildren(view.svg);
    editor.show(t);
    show();
    if (shown && order.length === movable.length) go();
  }
  /** @returns {import("./graph.js").PaintState} */
  function fresh() {
    return {
      data: new Set(t.nodes.map((n) => n.id)),
      grad: Object.fromEntries(t.nodes.map((n) => [n.id, 0])),
      touched: new Set(),
      active: { nodes: [], edges: [] },
      backward: true,
    };
  }
  /** @param {string} id */
  function place(id) {
    order.push(id);
    show();
  }
  function show() {
    placed.replaceChildren(...order.map((id) => h("li", { class: "autograd-chip" }, N[id].expr)));
    const left = movable.filter((id) => !order.includes(id));
    pool.replaceChildren(
      ...left.map((id) =>
        h(
          "button",
          {
            type: "button",
            class: "ag-btn",
            "data-place": id,
            onclick: act(
              () => place(id),
              () => [pool.querySelector("button"), run],
            ),
          },
          `place ${N[id].label}`,
        ),
      ),
    );
    run.disabled = order.length !== movable.length;
    undo.disabled = clear.disabled = order.length === 0;
    result.replaceChildren(
      h(
        "p",
        {},
        order.length === movable.length
          ? "Press Run."
          : `Place ${left.length} more node${left.length === 1 ? "" : "s"}.`,
      ),
    );
    delete root.dataset.result;
    delete root.dataset.valid;
    delete root.dataset.grad;
    paint(view, t, fresh());
  }
  function go() {
    const { grad, seen } = lookup(t, order);
    const s = fresh();
    s.grad = grad;
    s.touched = new Set([t.root, ...order.flatMap((id) => t.edges.filter((e) => e.node === id).map((e) => e.child))]);
    s.active = { nodes: [target], edges: [] };
    paint(view, t, s);
    const L = (/** @type {string} */ id) => N[id].label;
    const got = grad[target],
      want = N[target].grad; // want: what backward() gave when Python recorded the trace
    const broken = judge(t, order);
    root.dataset.valid = String(broken.length === 0);
    root.dataset.result = got === want ? "right" : "wrong";
    root.dataset.grad = String(got);
    const orderLine =
      broken.length === 0
        ? verdict(true, "Valid order", "each node is visited after all of its parents.")
        : verdict(
            false,
            "Invalid order",
            broken.map((e) => `${L(e.child)} comes before ${L(e.node)}, one of its parents`).join("; ") + ".",
          );
    let gradText;
    if (got === want) {
      const early = [...new Set(broken.map((e) => e.child))];
      gradText =
        `${L(target)}.grad = ${fmt(got)}, what backward() gives.` +
        (early.length
          ? ` The nodes visited too early (${early.map(L).join(", ")}) had nothing missing yet to pass on` +
            (early.every((id) => N[id].leaf) ? ": a leaf has no children to push to." : ".")
          : "");
    } else {
      // which visits passed on a grad that was not complete yet, and who had not pushed into them
      const short = order
        .filter((id) => !N[id].leaf && seen[id] !== N[id].grad)
        .map((id) => {
          const late = t.edges
            .filter((e) => e.child === id && order.indexOf(e.node) > order.indexOf(id))
            .map((e) => L(e.node));
          return (
            `${L(id)} was visited holding ${L(id)}.grad = ${fmt(seen[id])}, not ${fmt(N[id].grad)}` +
            (late.length
              ? ` (${[...new Set(late)].join(" and ")} had not pushed into it yet)`
              : " (what reached it was already short)")
          );
        });
      gradText =
        `${L(target)}.grad = ${fmt(got)}, but backward() gives ${fmt(want)}: ${short.join("; ")}. ` +
        `The += is fine; the order is not.`;
    }
    result.replaceChildren(orderLine, verdict(got === want, got === want ? "Right result" : "Wrong result", gradText));
  }
  root.replaceChildren(
    help,
    stage,
    legend(),
    h("div", { class: "autograd-controls" }, h("span", {}, "Place next:"), pool),
    h("div", { class: "autograd-controls" }, h("span", {}, "Visit order:"), placed),
    h("div", { class: "autograd-controls" }, run, undo, clear, engine),
    result,
    editor.form,
  );
  watchScroll(stage);
  load(original);
}
