// "Your own leaf values": number inputs for a graph's leaves and an Apply button. The widget never
// computes the new values itself: Apply dispatches mg:leaves, whose detail (a LeavesRequest) carries the
// values and the two ways to answer; whoever runs Python (the site's in-browser Python, run/leaves.js) calls
// detail.trace(trace) with the engine's trace, or detail.error(message).
import { h } from "../dom.js";
import { decimalProblem, fmt, parseDecimal } from "./format.js";

/**
 * What a widget asks of the page's Python (the detail of its mg:leaves event), and the two ways to answer.
 * @typedef {import("./graph.js").Trace} Trace
 * @typedef {object} LeavesRequest
 * @property {string} preset                  the graph's name
 * @property {Record<string, number>} leaves  the reader's values, by leaf
 * @property {(trace: Trace) => void} trace   answer with the engine's trace for them
 * @property {(message: string) => void} error   or say why there is none
 */

/**
 * The leaf-values form of a widget.
 * @param {HTMLElement} root  the widget
 * @param {{ preset: () => string, onTrace: (trace: Trace) => void, onOriginal: () => void, onBusy: (busy: boolean) => void }} how
 *   onBusy(true) as the values are sent, so that the graph can mark its old numbers stale; onBusy(false) when answered
 */
export function leafEditor(root, { preset, onTrace, onOriginal, onBusy }) {
  /** @type {HTMLInputElement[]} */
  let inputs = [];
  const fields = h("span", { class: "autograd-leaves__fields" });
  const apply = h("button", { type: "submit", class: "ag-btn ag-btn--primary", "data-action": "apply" }, "Apply");
  const original = h(
    "button",
    {
      type: "button",
      class: "ag-btn",
      "data-action": "original",
      onclick: () => {
        onOriginal();
        say("ok", "Back to the page's values.");
      },
    },
    "Page values",
  );
  const status = h("p", {
    class: "autograd-leaves__status",
    role: "status",
    "aria-live": "polite",
    "data-role": "leaves-status",
  });
  const form = h(
    "form",
    { class: "autograd-leaves", novalidate: true }, // unnamed: a named form is a landmark
    h("span", { class: "autograd-leaves__title" }, "Your own leaf values:"),
    fields,
    apply,
    original,
    status,
  );

  /** @param {string} kind  @param {string} text */
  function say(kind, text) {
    status.dataset.kind = kind;
    status.replaceChildren(
      ...(kind === "error" ? [h("span", { class: "ag-icon", "aria-hidden": "true" }, "✗ "), text] : [text]),
    );
  }
  /** @param {Trace} trace */
  function show(trace) {
    // the boxes are made anew; one that had focus (Enter in it sent the values) hands it to its successor
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const focused = active && fields.contains(active) ? active.dataset.leaf : undefined;
    const leaves = trace.nodes.filter((n) => n.leaf && !n.const);
    inputs = leaves.map((n) =>
      h("input", {
        type: "text",
        inputmode: "decimal",
        autocomplete: "off",
        spellcheck: "false",
        size: 6,
        value: fmt(n.data),
        "data-leaf": n.id,
        id: `${root.id || "ag"}-${trace.name}-${n.id}`,
      }),
    );
    fields.replaceChildren(
      ...leaves.map((n, i) => h("label", { class: "autograd-leaf" }, `${n.label} =`, " ", inputs[i])),
    );
    if (focused !== undefined) (inputs.find((input) => input.dataset.leaf === focused) ?? inputs[0])?.focus();
  }
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    /** @type {Record<string, number>} */
    const leaves = {};
    for (const input of inputs) {
      const x = parseDecimal(input.value);
      input.toggleAttribute("aria-invalid", x === null);
      if (x === null) {
        say("error", `${input.dataset.leaf}: ${decimalProblem(input.value)}`);
        input.focus();
        input.select();
        return;
      }
      leaves[String(input.dataset.leaf)] = x;
    }
    form.setAttribute("aria-busy", "true");
    say("busy", "Computing with Python… (the graph's numbers are the old ones until then)");
    onBusy(true);
    /** @type {LeavesRequest} */
    const detail = { preset: preset(), leaves, trace: answerTrace, error: answerError };
    root.dispatchEvent(new CustomEvent("mg:leaves", { bubbles: true, detail }));
  });
  /** @param {Trace} trace */
  function answerTrace(trace) {
    form.removeAttribute("aria-busy");
    onBusy(false);
    try {
      onTrace(trace);
    } catch (err) {
      say("error", String(/** @type {Error} */ (err).message || err));
      return;
    }
    const given = trace.nodes.filter((n) => n.leaf && !n.const).map((n) => `${n.label} = ${fmt(n.data)}`);
    say("ok", `Computed by microgpt's engine in Python with ${given.join(", ")}.`);
  }
  /** @param {string} message */
  function answerError(message) {
    form.removeAttribute("aria-busy");
    onBusy(false);
    say("error", String(message));
  }
  return { form, show };
}
