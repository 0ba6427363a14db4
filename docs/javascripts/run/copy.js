// The Copy button of a block that continues others: it copies the whole chain, the blocks it continues
// first, with a comment line where each of them ends, so that what a reader pastes runs on its own
// (tests/browser/test_browser.py pastes every copy button's text into a fresh Python and runs it).
//
// Why a button of our own: Material's copy button copies its own block's text, and the documented
// ways to change that are none (its `data-copy` attribute was taken out of its documentation as too
// fragile, and would put every chain's code into the page a second time). What Material documents is
// the per-block switch `.no-copy`, which the build puts on each continuing block (tools/mgsite/mgsite/runnable.py);
// this button, in the block's own Run bar, takes its place. The text comes from the blocks as the page
// shows them (never the reader's edits), and goes through the standard Clipboard API.
import { h } from "../dom.js";

/** @typedef {import("./blocks.js").Block} Block */

/** The comment line that ends part k (1-based) of a chain of n parts. @param {number} k  @param {number} n */
export const endOfPart = (k, n) => `# ---- end of part ${k} of ${n} (an earlier block on this page) ----`;

/** What the Copy button of the last block of `chain` copies: each block's code, in page order.
 * @param {Block[]} chain */
export function chainText(chain) {
  const parts = chain.map((block) => block.original);
  return parts
    .map((code, k) => (k < parts.length - 1 ? `${code}\n${endOfPart(k + 1, parts.length)}\n` : `${code}\n`))
    .join("");
}

/**
 * A button that copies the chain, saying what it did through `say` (the bar's status).
 * @param {Block[]} chain  @param {(text: string) => void} say
 */
export function copyButton(chain, say) {
  const others = chain.length - 1;
  const label = `Copy with the ${others === 1 ? "block" : `${others} blocks`} above`;
  const button = h("button", { type: "button", class: "md-button mg-run__copy" }, label);
  const parts = chain.length === 2 ? "both parts" : `all ${chain.length} parts`;
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(chainText(chain)).then(
      () => say(`Copied ${parts}: pasted into Python, they run as they are.`),
      () => say("Your browser did not let the page copy: select the code of each part and copy it."),
    );
  });
  return button;
}
