// How the editor looks: the page's own code colours and sizes, from Material's CSS variables, so the editor
// follows the light and dark schemes as the page's code blocks do (the same contrast, checked by axe).
// The token classes are styled in stylesheets/run.css with Material's --md-code-hl-* colours.
import { syntaxHighlighting } from "@codemirror/language";
import { EditorView } from "@codemirror/view";
import { tagHighlighter, tags as t } from "@lezer/highlight";

/** Python's tokens -> the classes run.css colours as Material colours Pygments' (keyword, string, ...). */
export const highlighting = syntaxHighlighting(
  tagHighlighter([
    {
      tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword],
      class: "mg-hl-keyword",
    },
    { tag: [t.string, t.docString], class: "mg-hl-string" },
    { tag: [t.special(t.string), t.escape], class: "mg-hl-special" },
    { tag: [t.number, t.integer, t.float], class: "mg-hl-number" },
    { tag: [t.bool, t.null, t.self, t.standard(t.variableName)], class: "mg-hl-constant" },
    { tag: [t.comment, t.lineComment], class: "mg-hl-comment" },
    {
      tag: [t.function(t.definition(t.variableName)), t.definition(t.className), t.className],
      class: "mg-hl-function",
    },
    { tag: [t.operator, t.derefOperator], class: "mg-hl-operator" },
    { tag: [t.punctuation, t.paren, t.squareBracket, t.brace, t.separator], class: "mg-hl-punctuation" },
  ]),
);

/** Sizes and colours from the page (run.css holds the rest: the tokens, the error marks). */
export const look = EditorView.theme({
  "&": {
    color: "var(--md-code-fg-color)",
    backgroundColor: "var(--md-code-bg-color)",
    // the size of code in the page's text (Material: .md-typeset 0.8rem, its code 0.85em; 13.6 px by default),
    // also in an admonition, whose smaller text (0.64rem) would make it 10.9 px, too small to edit
    fontSize: "0.68rem",
  },
  ".cm-scroller": { fontFamily: "var(--md-code-font-family)", lineHeight: "1.4" },
  ".cm-content": { padding: "0.8em 0", caretColor: "var(--md-code-fg-color)" },
  ".cm-line": { padding: "0 1.2em 0 0.6em" },
  "&.cm-focused": { outline: "2px solid var(--md-accent-fg-color)", outlineOffset: "1px" },
  ".cm-cursor": { borderLeftColor: "var(--md-code-fg-color)" },
  ".cm-gutters": {
    color: "var(--md-default-fg-color--light)",
    backgroundColor: "var(--md-code-bg-color)",
    borderRight: "1px solid var(--md-default-fg-color--lightest)",
  },
  ".cm-activeLine": { backgroundColor: "var(--md-code-hl-color--light)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground": {
    backgroundColor: "var(--md-accent-fg-color--transparent)",
  },
  ".cm-matchingBracket": {
    backgroundColor: "var(--md-code-hl-color--light)",
    outline: "1px solid var(--md-default-fg-color--lighter)",
  },
});
