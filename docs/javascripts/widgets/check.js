// Self-check (markup from docs/hooks/traces.py): a number or one option, checked here against the
// answer the page wrote; a hint that stays open to the reader; the explanation hidden until the
// reader answers right or asks for the answer. Status messages are read out (aria-live).
import { decimalProblem, h, parseDecimal } from "./format.js";

export function mountCheck(form) {
  const input = form.querySelector("input[name='answer']");
  const radios = [...form.querySelectorAll("input[type='radio']")];
  const status = form.querySelector(".autograd-check__status");
  const explain = form.querySelector(".autograd-check__explain");
  const show = form.querySelector("[data-action='show']");
  const choice = form.dataset.choice;

  function say(kind, icon, text) {
    form.dataset.result = kind;
    status.replaceChildren(...(icon ? [h("span", { class: "ag-icon", "aria-hidden": "true" }, icon), " "] : []), text);
  }
  function reveal(kind) {
    explain.hidden = false;
    if (choice) radios[Number(choice) - 1].closest("label").classList.add("autograd-choice--answer");
    explain.focus();  // the explanation is what to read next
    form.dataset.result = kind;
  }
  function retry(el) {
    el.focus();
    if (el.select) el.select();
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (choice) {
      const picked = radios.find((r) => r.checked);
      if (!picked) return (say("invalid", "", "Choose one of the options first."), retry(radios[0]));
      if (picked.value === choice) return (say("right", "✓", "Right."), reveal("right"));
      say("wrong", "✗", `Not option ${picked.value}. Try again, or open the hint.`);
      return retry(picked);
    }
    const given = parseDecimal(input.value);
    input.toggleAttribute("aria-invalid", given === null);
    if (given === null) return (say("invalid", "", decimalProblem(input.value)), retry(input));
    const answer = Number(form.dataset.answer.replace("−", "-"));
    if (Math.abs(given - answer) <= Number(form.dataset.tolerance)) return (say("right", "✓", "Right."), reveal("right"));
    say("wrong", "✗", `Not ${input.value.trim()}. Try again, or open the hint.`);
    retry(input);
  });
  show.addEventListener("click", () => {
    say("shown", "", choice ? `The answer is option ${choice}.` : `The answer is ${form.dataset.answer}.`);
    reveal("shown");
  });
}
