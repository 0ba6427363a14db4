// Self-check: the build wrote the question, the answer (a grad from microgpt.trace) and the explanation.
export function mountCheck(form) {
  const input = form.querySelector("input");
  const out = form.querySelector(".autograd-check__feedback");
  const answer = Number(form.dataset.answer);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = input.value.trim().replace("−", "-").replace(",", ".");
    const given = Number(text);
    if (text === "" || Number.isNaN(given)) {
      form.dataset.result = "invalid";
      out.textContent = "Type a number, such as 2.5 or -3.";
    } else if (Math.abs(given - answer) <= 1e-3 * Math.max(1, Math.abs(answer))) {
      form.dataset.result = "right";
      out.textContent = `Right. ${form.dataset.explain}`;
    } else {
      form.dataset.result = "wrong";
      out.textContent = `Not ${text}. Try again: step the widget above to the end and read the grad, or apply the local rules by hand.`;
    }
  });
}
