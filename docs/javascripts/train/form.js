// The Train widget's settings: one number field per setting, its bounds and default from the build
// (microgpt/course/live.py SETTINGS, written into data-mg-train). A value out of bounds is refused next to its
// field (aria-invalid, and the message the field's aria-describedby names), before anything runs.
import { h } from "../dom.js";

/**
 * The widget's settings as the build writes them (microgpt/course/live.py's form_json).
 * @typedef {{ label: string, flag: string, low: number, high: number, step: number, default: number, integer: boolean }} Setting
 * @typedef {{ settings: Record<string, Setting>, command: string, eval_every: number }} Spec
 * @typedef {{ name: string, s: Setting, input: HTMLInputElement, hint: HTMLElement, error: HTMLElement, box: HTMLElement }} Field
 */

let forms = 0;

/** Why a typed value is refused, or null. @param {Setting} s  @param {string} raw */
function problem(s, raw) {
  const range = `from ${s.low} to ${s.high}`;
  if (raw.trim() === "") return `${s.label}: enter a number ${range}.`;
  const value = Number(raw);
  if (!Number.isFinite(value)) return `${s.label}: “${raw}” is not a number; enter one ${range}.`;
  if (s.integer && !Number.isInteger(value)) return `${s.label} must be a whole number ${range}.`;
  if (value < s.low || value > s.high) return `${s.label} must be ${range} here; ${value} is not.`;
  if (s.integer && (value - s.low) % s.step !== 0) return `${s.label} must be a multiple of ${s.step} ${range}.`;
  return null;
}

/** The fields, in a fieldset; {fieldset, read() -> values | null (after marking the bad fields), fill(values)}. */
/** @param {Spec} spec */
export function settingsForm(spec) {
  const n = forms++;
  const fields = Object.entries(spec.settings).map(([name, s]) => {
    const id = `mg-train-${n}-${name}`;
    const input = h("input", {
      id,
      name,
      type: "text",
      inputmode: s.integer ? "numeric" : "decimal",
      autocomplete: "off",
      spellcheck: "false",
      value: String(s.default),
      class: "mg-train__input",
      "aria-describedby": `${id}-hint`,
    });
    const hint = h("span", { id: `${id}-hint`, class: "mg-train__hint" }, `${s.low}–${s.high}`);
    const error = h("span", { id: `${id}-error`, class: "mg-train__error", hidden: true });
    const label = h("label", { for: id }, s.label);
    return { name, s, input, hint, error, box: h("div", { class: "mg-train__field" }, label, input, hint, error) };
  });
  const fieldset = h(
    "fieldset",
    { class: "mg-train__settings" },
    h("legend", {}, "Settings"),
    ...fields.map((f) => f.box),
  );
  const mark = (/** @type {Field} */ f, /** @type {string | null} */ message) => {
    f.error.textContent = message ?? "";
    f.error.hidden = !message;
    if (message) f.input.setAttribute("aria-invalid", "true");
    else f.input.removeAttribute("aria-invalid");
    f.input.setAttribute("aria-describedby", message ? `${f.error.id} ${f.hint.id}` : f.hint.id);
  };
  // a refused field is checked again as the reader types (not on change: that comes with the click on Start,
  // and the message going away would move Start from under the pointer between press and release)
  for (const f of fields)
    f.input.addEventListener("input", () => f.error.hidden || mark(f, problem(f.s, f.input.value)));
  return {
    fieldset,
    read() {
      /** @type {Record<string, number> | null} */
      let values = {};
      for (const f of fields) {
        const message = problem(f.s, f.input.value);
        mark(f, message);
        if (message) values = null;
        else if (values) values[f.name] = Number(f.input.value);
      }
      if (!values) fields.find((f) => f.input.hasAttribute("aria-invalid"))?.input.focus();
      return values;
    },
    /** The current values, as typed (for the command line offered instead). */
    typed: () => Object.fromEntries(fields.map((f) => [f.name, f.input.value.trim() || String(f.s.default)])),
  };
}
