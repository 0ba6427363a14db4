// Self-check (markup from tools/mgsite/mgsite/graphs.py): a number or one option, checked here against the
// answer the page wrote; a hint that stays open to the reader; the explanation hidden until the
// reader answers right or asks for the answer. Status messages are read out (aria-live).
import { h } from "../dom.js";
import { decimalProblem, parseDecimal } from "./format.js";

/** @param {HTMLFormElement} form  the self-check the build wrote, with its parts */
export function mountCheck(form) {
  const part = (/** @type {string} */ selector) => /** @type {HTMLElement} */ (form.querySelector(selector));
  const input = /** @type {HTMLInputElement} */ (part("input[name='answer']"));
  const radios = [.../** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll("input[type='radio']"))];
  const status = part(".autograd-check__status");
  const explain = part(".autograd-check__explain");
  const show = part("[data-action='show']");
  const choice = form.dataset.choice;

  /** @param {string} kind  @param {string} icon  @param {string} text */
  function say(kind, icon, text) {
    form.dataset.result = kind;
    status.replaceChildren(...(icon ? [h("span", { class: "ag-icon", "aria-hidden": "true" }, icon), " "] : []), text);
  }
  /** @param {string} kind */
  function reveal(kind) {
    explain.hidden = false;
    if (choice) radios[Number(choice) - 1].closest("label")?.classList.add("autograd-choice--answer");
    explain.focus(); // the explanation is what to read next
    form.dataset.result = kind;
  }
  /** @param {HTMLInputElement} el */
  function retry(el) {
    el.focus();
    el.select();
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (choice) {
      const picked = radios.find((r) => r.checked);
      if (!picked) {
        say("invalid", "", "Choose one of the options first.");
        return retry(radios[0]);
      }
      if (picked.value === choice) {
        say("right", "✓", "Right.");
        return reveal("right");
      }
      say("wrong", "✗", `Not option ${picked.value}. Try again, or open the hint.`);
      return retry(picked);
    }
    const given = parseDecimal(input.value);
    input.toggleAttribute("aria-invalid", given === null);
    if (given === null) {
      say("invalid", "", decimalProblem(input.value));
      return retry(input);
    }
    const answer = Number(String(form.dataset.answer).replace("−", "-"));
    if (Math.abs(given - answer) <= Number(form.dataset.tolerance)) {
      say("right", "✓", "Right.");
      return reveal("right");
    }
    say("wrong", "✗", `Not ${input.value.trim()}. Try again, or open the hint.`);
    retry(input);
  });
  show.addEventListener("click", () => {
    say("shown", "", choice ? `The answer is option ${choice}.` : `The answer is ${form.dataset.answer}.`);
    reveal("shown");
  });
}
