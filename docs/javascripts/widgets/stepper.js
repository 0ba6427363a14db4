// Step-through widget: the forward pass fills data leaves-to-root, then the engine's backward pass
// replays its recorded += one at a time. Every number shown is read from the embedded trace.
import { h } from "../dom.js";
import { fmt, keepFocus, readJSON, revealInside, watchScroll } from "./format.js";
import { drawGraph, legend, paint, withLayout } from "./graph.js";
import { leafEditor } from "./leaves.js";

/**
 * @typedef {import("./graph.js").Trace} Trace
 * @typedef {{ kind: "forward", id: string } | { kind: "seed" } | { kind: "backward", b: import("./graph.js").BackwardStep, first: boolean }} Step
 */

/** @param {Trace} t  @returns {Step[]} */
function steps(t) {
  /** @type {Step[]} */
  const out = t.forward.map((id) => ({ kind: "forward", id }));
  out.push({ kind: "seed" });
  t.backward.forEach((b, i) => {
    out.push({ kind: "backward", b, first: i === 0 || t.backward[i - 1].node !== b.node });
  });
  return out;
}

const num = (/** @type {number} */ x) => (x < 0 ? `(${fmt(x)})` : fmt(x));

/** @param {Trace} t  @param {Step | undefined} step  @param {boolean} done */
function sentence(t, step, done) {
  const N = Object.fromEntries(t.nodes.map((n) => [n.id, n]));
  const L = (/** @type {string} */ id) => N[id].label;
  if (!step) return "Press Step to run the forward pass: leaves first, then each node from its children.";
  if (step.kind === "forward") {
    const n = N[step.id];
    if (n.const) return `The constant ${n.label} becomes a leaf Value of its own, data ${fmt(n.data)}.`;
    if (n.leaf) return `${n.label} is a leaf: its data, ${fmt(n.data)}, is given.`;
    const kids = n.children;
    const formula =
      n.op === "+" || n.op === "*"
        ? `${kids.map(L).join(n.op === "+" ? " + " : " · ")} = ${kids.map((c) => num(N[c].data)).join(n.op === "+" ? " + " : " · ")}`
        : `${n.op}(${L(kids[0])}) = ${n.op}(${fmt(N[kids[0]].data)})`;
    const locals = t.edges.filter((e) => e.node === n.id).map((e) => fmt(e.local_grad));
    return (
      `${n.label} = ${formula} = ${fmt(n.data)}. It keeps its children (${kids.map(L).join(", ")}) ` +
      `and their local gradients (${locals.join(", ")}).`
    );
  }
  if (step.kind === "seed") {
    return (
      `Backward starts at the root: after the topological sort, ${L(t.root)}.grad = ${fmt(t.seed.after)}, ` +
      `since ∂${L(t.root)}/∂${L(t.root)} = 1.`
    );
  }
  const b = step.b;
  const visit = step.first ? `Visit ${N[b.node].expr}. ` : "";
  const tail = done ? ` Done: every node now holds ∂${L(t.root)}/∂node.` : "";
  return (
    `${visit}${L(b.child)}.grad += local · ${L(b.node)}.grad = ${num(b.local_grad)} · ${num(b.upstream)}, ` +
    `so ${L(b.child)}.grad goes ${fmt(b.before)} → ${fmt(b.after)}.${tail}`
  );
}

/** @param {Trace} t  @param {Step[]} list  @param {number} k */
function stateAt(t, list, k) {
  /** @type {import("./graph.js").PaintState} */
  const s = { data: new Set(), grad: {}, touched: new Set(), active: { nodes: [], edges: [] }, backward: false };
  for (const n of t.nodes) s.grad[n.id] = 0;
  for (let i = 0; i < k; i++) {
    const st = list[i],
      last = i === k - 1;
    if (st.kind === "forward") {
      s.data.add(st.id);
      if (last)
        s.active = {
          nodes: [st.id],
          edges: t.edges.filter((e) => e.node === st.id).map((e) => `${e.node}-${e.index}`),
        };
    } else if (st.kind === "seed") {
      s.backward = true;
      s.grad[t.root] = t.seed.after;
      s.touched.add(t.root);
      if (last) s.active = { nodes: [t.root], edges: [] };
    } else {
      s.grad[st.b.child] = st.b.after; // the value the engine wrote
      s.touched.add(st.b.child);
      if (last) s.active = { nodes: [st.b.child], edges: [`${st.b.node}-${st.b.index}`], visiting: st.b.node };
    }
  }
  return s;
}

/** @param {HTMLElement} root */
export function mountStepper(root) {
  /** @type {Record<string, Trace>} */
  const original = readJSON(root, "traces");
  const traces = { ...original };
  /** @type {Trace} */
  let t;
  /** @type {Step[]} */
  let list = [];
  let k = 0;
  /** @type {import("./graph.js").GraphView} */
  let view;
  const select = h(
    "select",
    { "aria-label": "Graph", "data-role": "preset" },
    Object.values(traces).map((tr) => h("option", { value: tr.name }, tr.title)),
  );
  // a button that disables itself (Run all at the end, Reset at step 0) hands focus on instead of dropping it
  const btn = (/** @type {string} */ label, /** @type {string} */ key, /** @type {() => void} */ fn) =>
    h(
      "button",
      {
        type: "button",
        class: "ag-btn",
        "data-action": key,
        onclick: () => {
          fn();
          keepFocus(root, k === list.length ? [back, reset] : [step, all]);
        },
      },
      label,
    );
  const back = btn("◀ Back", "back", () => go(k - 1));
  const step = btn("Step ▶", "step", () => go(k + 1));
  const all = btn("Run all ▶▶", "run-all", () => go(list.length));
  const reset = btn("Reset", "reset", () => go(0));
  const status = h("p", { class: "autograd-phase", "data-role": "phase" });
  const say = h("p", { class: "autograd-sentence", role: "status", "aria-live": "polite", "data-role": "sentence" });
  const stage = h("div", { class: "autograd-scroll" });
  const help = h(
    "p",
    { class: "autograd-help" },
    "Numbers on the arrows are local gradients ∂node/∂child, stored by the forward pass.",
    h("span", { class: "autograd-keys" }, " Keys: → step, ← back, Home reset, End run all."),
  );
  const editor = leafEditor(root, {
    preset: () => t.name,
    onTrace: (fresh) => {
      traces[fresh.name] = withLayout(fresh, original[fresh.name]);
      if (fresh.name === t.name) load(fresh.name, Infinity); // the new sweep, finished: Reset and Step replay it
    },
    onOriginal: () => {
      traces[t.name] = original[t.name];
      load(t.name, k);
    },
    onBusy: (busy) => root.toggleAttribute("data-stale", busy), // extra.css fades the old numbers
  });

  /** @param {string} name */
  function load(name, at = 0) {
    t = traces[name];
    list = steps(t);
    view = drawGraph(t);
    stage.replaceChildren(view.svg);
    select.value = name;
    root.dataset.current = name;
    editor.show(t);
    go(at);
  }
  /** @param {number} n */
  function go(n) {
    k = Math.max(0, Math.min(list.length, n));
    const state = stateAt(t, list, k);
    paint(view, t, state);
    // the node this step changed, in sight in a graph wider than its box (nothing is measured at step 0)
    const shown = [state.active.visiting, ...state.active.nodes].filter((id) => id !== undefined);
    revealInside(
      stage,
      shown.map((id) => view.nodeEls[id].g),
    );
    const st = list[k - 1];
    const phase = !st ? "ready" : st.kind === "forward" ? "forward" : "backward";
    status.textContent = `Step ${k} of ${list.length} · ${phase === "ready" ? "ready" : `${phase} pass`}`;
    root.dataset.step = String(k);
    root.dataset.phase = phase;
    say.textContent = sentence(t, st, k === list.length);
    back.disabled = k === 0;
    reset.disabled = k === 0;
    step.disabled = all.disabled = k === list.length;
  }
  select.addEventListener("change", () => load(select.value));
  root.tabIndex = 0;
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", "Step-through computation graph");
  root.addEventListener("keydown", (ev) => {
    if (/** @type {Element} */ (ev.target).closest("input, select, textarea, summary, .autograd-scroll")) return; // their arrow keys are their own
    /** @type {Record<string, () => void>} */
    const keys = {
      ArrowRight: () => go(k + 1),
      ArrowLeft: () => go(k - 1),
      Home: () => go(0),
      End: () => go(list.length),
    };
    if (keys[ev.key] && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      keys[ev.key]();
      ev.preventDefault();
    }
  });
  root.replaceChildren(
    h("div", { class: "autograd-controls" }, h("label", {}, "Graph ", select), back, step, all, reset),
    status,
    stage,
    say,
    legend(),
    editor.form,
    help,
  );
  watchScroll(stage);
  const preset = root.dataset.preset ?? "";
  load(preset in traces ? preset : Object.keys(traces)[0]);
}
