// What the charts show, as text: the run so far and each matrix's gradient norm in two tables (also the
// key to the charts' colours), the names sampled, and one polite status line that speaks only when
// something happens (start, pause, an evaluation, the end), not at every step.
import { h } from "../dom.js";
import { DASHES, kindAndLayer } from "./charts.js";

const f4 = (x) => (x == null ? "–" : x.toFixed(4));

function swatch(kind, layer) {
  const style = `--swatch: var(--mg-train-${kind}); --dash: ${DASHES[layer ?? 0].length ? "dashed" : "solid"}`;
  return h("span", { className: "mg-train__swatch", "aria-hidden": "true", style });
}

function table(caption, rows) {
  const body = h("tbody");
  const cells = rows.map(([key, label, mark]) => {
    const value = h("td", { textContent: "–" });
    body.append(h("tr", {}, h("th", { scope: "row" }, ...(mark ? [mark, " "] : []), label), value));
    return [key, value];
  });
  return { el: h("table", { className: "mg-train__table" }, h("caption", { textContent: caption }), body), cells: new Map(cells) };
}

/** The summary of a run: {el, update(now), announce(text), samples(report)}. */
export function summary(info) {
  const key = (v) => h("span", { className: "mg-train__swatch", "aria-hidden": "true", style: `--swatch: var(--mg-train-${v})` });
  const run = table("The run so far", [
    ["step", "Step"],
    ["rate", "Steps per second"],
    ["elapsed", "Elapsed"],
    ["loss", "Loss of the last step", key("step")],
    ["mean", `Mean loss of the last ${info.mean_window} steps`, key("mean")],
    ["held", "Held-out loss", key("held")],
    ["uniform", `ln ${info.vocab_size} (a uniform guess)`, key("uniform")],
  ]);
  run.cells.get("uniform").textContent = f4(info.uniform);
  const grads = table(
    "Gradient norm of each matrix at the last step",
    info.names.map((name) => [name, h("code", { textContent: name }), swatch(...kindAndLayer(name))]),
  );
  const names = h("ul", { className: "mg-train__samples" });
  const losses = h("ol", { className: "mg-train__losses" });
  const status = h("p", { className: "mg-train__status", role: "status" });
  const el = h(
    "div",
    { className: "mg-train__summary" },
    run.el,
    grads.el,
    h("div", {}, h("p", { className: "mg-train__samples-title", textContent: "Names sampled from the model" }), names),
    h("details", { className: "mg-train__every" }, h("summary", { textContent: "Every step's loss" }), losses),
  );
  return {
    el,
    status,
    announce: (text) => (status.textContent = text),
    update({ step, steps, rate, seconds, last, held }) {
      run.cells.get("step").textContent = `${step} of ${steps}`;
      run.cells.get("rate").textContent = rate ? rate.toFixed(1) : "–";
      run.cells.get("elapsed").textContent = `${seconds.toFixed(1)} s`;
      run.cells.get("loss").textContent = f4(last?.loss);
      run.cells.get("mean").textContent = f4(last?.mean);
      run.cells.get("held").textContent = held ? `${f4(held.held_out)} (at step ${held.step})` : "–";
      info.names.forEach((name, i) => {
        const norm = last?.norms[i];
        grads.cells.get(name).textContent = norm == null ? "–" : norm.toPrecision(3);
      });
    },
    stepped(s) {
      losses.append(h("li", { textContent: f4(s.loss) }));
    },
    sampled(report) {
      const item = h("li", {}, h("span", { className: "mg-train__at", textContent: `step ${report.step}: ` }));
      item.append(report.samples.map((s) => s || "(empty)").join(", "));
      names.prepend(item);
    },
  };
}
