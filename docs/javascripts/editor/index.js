// The code editor of a runnable block: CodeMirror 6 (npm, pinned in package.json), set up for a reader
// who edits a page's Python and runs it. This folder is not published as it is: the build bundles it with
// the CodeMirror packages it imports into one file, javascripts/run/editor.js (tools/mgsite/mgsite/vendor.py runs
// esbuild), which run/editing.js loads the first time a reader presses Edit.
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { pythonLanguage } from "@codemirror/lang-python";
import { LanguageSupport, bracketMatching, indentOnInput, indentUnit } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import { wrappedLineIndent } from "codemirror-wrapped-line-indent";
import { highlighting, look } from "./look.js";
import { errorMarks, setErrorMarks } from "./marks.js";

/**
 * @typedef {{ line: number, message: string }} ErrorMark  a line of the code (1-based) and what went wrong there
 *
 * @typedef {object} EditorOptions
 * @property {HTMLElement} parent        where the editor goes (it is appended)
 * @property {string} text               the code it opens with
 * @property {string} label              its accessible name
 * @property {string} describedBy        the id of the element that says how to use it (Tab, Escape, Ctrl+Enter)
 * @property {() => void} onRun          Ctrl+Enter (Cmd+Enter on a Mac)
 * @property {(text: string) => void} onChange   after every change of the text
 *
 * @typedef {object} Editor
 * @property {() => string} text                 the code as it is now
 * @property {(text: string) => void} setText    replace the code (the caret goes to the start)
 * @property {() => void} focus                  focus it, scrolled to the first column
 * @property {(marks: ErrorMark[]) => void} markErrors   mark these lines (none: clear the marks)
 * @property {HTMLElement} dom                   the editor's element
 */

/** A Python editor in options.parent, with the caret at the start of its first line.
 * @param {EditorOptions} options
 * @returns {Editor} */
export function createEditor({ parent, text, label, describedBy, onRun, onChange }) {
  const run = () => {
    onRun();
    return true;
  };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        new LanguageSupport(pythonLanguage), // Python's syntax and indentation, without completion (nothing would offer it)
        highlighting,
        look,
        errorMarks,
        // a long line wraps, and its continuation is indented past the line's own indentation, so that nothing of
        // it (a docstring's hint) is out of sight, on a phone (36 columns) or beside the page's text (about 80),
        // and a wrapped line does not read as a new one (its gutter has no number, either)
        EditorView.lineWrapping,
        wrappedLineIndent,
        // Tab indents; CodeMirror's documented way out for the keyboard is Escape, then Tab (said in describedBy)
        keymap.of([{ key: "Mod-Enter", run }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
        // tabindex: the text is focusable as it is (contenteditable), and says so, so that checkers such as axe
        // see that a keyboard can reach the code of an editor that scrolls sideways on a phone
        EditorView.contentAttributes.of({ "aria-label": label, "aria-describedby": describedBy, tabindex: "0" }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  const toStart = () => (view.scrollDOM.scrollLeft = 0);
  return {
    dom: view.dom,
    text: () => view.state.doc.toString(),
    setText(next) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next }, selection: { anchor: 0 } });
      toStart();
    },
    focus() {
      view.focus();
      toStart();
    },
    markErrors(marks) {
      if (!marks.length && view.state.field(errorMarks).size === 0) return; // nothing marked, nothing to clear
      const lines = view.state.doc.lines;
      // a message stays in view however far the code is scrolled sideways: it sticks next to the line numbers
      const gutters = /** @type {HTMLElement | null} */ (view.dom.querySelector(".cm-gutters"));
      view.dom.style.setProperty("--mg-gutters", `${gutters?.offsetWidth ?? 0}px`);
      view.dispatch({ effects: setErrorMarks.of(marks.filter((m) => m.line >= 1 && m.line <= lines)) });
    },
  };
}
