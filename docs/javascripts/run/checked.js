// The checked output under a block (the build's data-mg-expected, under its label "Checked
// output") is what the page's code prints. An output beside an editor belongs to the code in it: once the
// code on screen is not the page's (the reader edited it, or a block it continues), or once a checker has
// judged a run of it (the verdict and what the run printed say it all), the checked output is folded away
// behind a button that says whose it is, the page's code's, and opens it on request; Reset unfolds it.
// Folded rather than hidden: in a "Find the slip" tab it is the checker's word on the page's attempt, which a
// reader fixing that attempt may want to read again.
import { h } from "../dom.js";

/** @typedef {import("./blocks.js").Block} Block */

/** @type {WeakMap<Element, HTMLElement>} */
const folds = new WeakMap(); // a checked output -> the paragraph with its button, once it has been folded

/** The checked output under block (its highlighted text), or null when the page shows none.
 * @param {Block} block */
export const checkedOutputOf = (block) =>
  /** @type {HTMLElement | null} */ (document.querySelector(`[data-mg-expected="${block.n}"]`));

/** The paragraph with the button that shows or hides a folded checked output. @param {HTMLElement} output */
function foldFor(output) {
  const made = folds.get(output);
  if (made) return made;
  output.id ||= `mg-checked-${output.dataset.mgExpected}`;
  const button = h(
    "button",
    { type: "button", class: "mg-run__unfold", "aria-expanded": "false", "aria-controls": output.id },
    h("span", { class: "mg-run__unfold-icon", "aria-hidden": "true" }),
    "The page's checked output",
  );
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    output.hidden = !open;
  });
  const fold = h("p", { class: "mg-run__fold" }, button);
  folds.set(output, fold);
  return fold;
}

/** Fold the block's checked output away (see the top of this file), or show it as the page built it.
 * @param {Block} block  @param {boolean} folded */
export function foldChecked(block, folded) {
  const output = checkedOutputOf(block);
  if (!output) return;
  const label = output.previousElementSibling?.matches("p.mg-marks") ? output.previousElementSibling : null;
  const fold = folds.get(output);
  if (folded === Boolean(fold?.isConnected)) return; // as it should be already
  if (folded) {
    const made = foldFor(output);
    (label ?? output).before(made);
    /** @type {HTMLButtonElement} */ (made.firstElementChild).setAttribute("aria-expanded", "false");
  } else fold?.remove();
  if (label) /** @type {HTMLElement} */ (label).hidden = folded;
  output.hidden = folded;
}
