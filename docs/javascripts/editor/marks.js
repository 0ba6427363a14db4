// Error marks: the line an error went through, tinted, with the error's message in a line of its own
// right under it (a block widget), so a reader sees it without hovering, on a phone too. The marks belong
// to the code that ran: the first change to the text clears them.
import { StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView, WidgetType } from "@codemirror/view";

/** @typedef {import("./index.js").ErrorMark} ErrorMark */

/** The effect that replaces the marks (an empty list clears them).
 * @type {import("@codemirror/state").StateEffectType<ErrorMark[]>} */
export const setErrorMarks = StateEffect.define();

class Message extends WidgetType {
  /** @param {string} message */
  constructor(message) {
    super();
    this.message = message;
  }

  /** @param {Message} other */
  eq(other) {
    return other.message === this.message;
  }

  toDOM() {
    const el = document.createElement("div");
    el.className = "mg-cm-error";
    el.textContent = this.message;
    return el;
  }
}

const errorLine = Decoration.line({ class: "mg-cm-error-line" });

/** @param {import("@codemirror/state").EditorState} state  @param {ErrorMark[]} marks */
function decorate(state, marks) {
  const ranges = [];
  for (const { line, message } of [...marks].sort((a, b) => a.line - b.line)) {
    const at = state.doc.line(line);
    ranges.push(errorLine.range(at.from));
    ranges.push(Decoration.widget({ widget: new Message(message), block: true, side: 1 }).range(at.to));
  }
  return Decoration.set(ranges, true);
}

/** The field that holds the marks; block widgets must come from the state, not from a view plugin. */
export const errorMarks = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    for (const effect of tr.effects) if (effect.is(setErrorMarks)) return decorate(tr.state, effect.value);
    return tr.docChanged ? Decoration.none : marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});
