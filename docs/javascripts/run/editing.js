// Edit and Reset: the page's highlighted code gives way to a code editor (CodeMirror, bundled by the build
// into editor.js, fetched the first time a reader presses Edit), and comes back on Reset. What the reader
// types is kept as a draft (drafts.js) as they type; a block whose draft is there when its page is shown
// opens in the editor with it, so no edit is lost to a reload or a move to another page.
import { h } from "../dom.js";
import { dropDraft, loadDraft, saveDraft } from "./drafts.js";

/** @typedef {import("./blocks.js").Block} Block */

// Said to every reader of an editor (its accessible description) and shown under it: how to leave it with
// the keyboard is CodeMirror's own rule (a Tab right after Escape moves the focus on), as is Tab indenting.
const MAC = /Mac|iPhone|iPad/.test(navigator.platform);
const KEYS = `Tab indents; to leave the editor, press Escape, then Tab. ${MAC ? "⌘" : "Ctrl"}+Enter runs the code.`;

// the editor's code, bundled by the build from ../editor/index.js (whose types these are), fetched once
const EDITOR = "./editor.js";
/** @type {Promise<typeof import("../editor/index.js")> | null} */
let loading = null;

/**
 * Show the editor in place of the page's code, and focus it if asked, with the caret at the start.
 * @param {Block} block
 * @param {{ focus: boolean, text?: string, onRun: () => void, onChange: () => void }} how
 *   text: what it opens with (a draft); else what it held before, or the page's code
 */
export async function openEditor(block, { focus, text, onRun, onChange }) {
  const { el, ui } = block;
  const code = /** @type {HTMLElement} */ (el.querySelector(".highlight"));
  ui.edit.hidden = true;
  ui.reset.hidden = false;
  block.editing = true;
  if (!block.editor) {
    loading ??= import(EDITOR);
    const { createEditor } = await loading;
    const keys = h("p", { class: "mg-run__keys", id: `mg-keys-${block.n}` }, KEYS);
    const box = h("div", { class: "mg-run__editor" });
    code.after(box);
    block.editor = createEditor({
      parent: box,
      text: block.original,
      label: "Code of this example, editable",
      describedBy: keys.id,
      onRun,
      onChange: (now) => {
        saveDraft(block.page, block.n, block.original, now);
        onChange();
      },
    });
    box.append(keys);
  }
  const editor = block.editor;
  const box = /** @type {HTMLElement} */ (editor.dom.parentElement);
  if (text !== undefined && text !== editor.text()) editor.setText(text); // calls onChange
  box.hidden = false;
  code.hidden = true;
  if (focus) editor.focus();
}

/** Back to the page's code; the draft is forgotten. @param {Block} block */
export function closeEditor(block) {
  const { el, ui, editor } = block;
  block.editing = false;
  dropDraft(block.page, block.n);
  if (editor) {
    editor.setText(block.original); // its next opening starts from the page's code (which is no draft)
    /** @type {HTMLElement} */ (editor.dom.parentElement).hidden = true;
  }
  /** @type {HTMLElement} */ (el.querySelector(".highlight")).hidden = false;
  ui.reset.hidden = true;
  ui.edit.hidden = false;
}

/** If the reader left a draft of this block, open the editor with it (without taking the focus).
 * @param {Block} block  @param {(text: string) => void} open */
export function restoreDraft(block, open) {
  const draft = loadDraft(block.page, block.n, block.original);
  if (draft !== null) open(draft);
}
