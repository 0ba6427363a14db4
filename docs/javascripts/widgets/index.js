// Entry point: mount every widget the build placed on the page, again after each instant navigation.
import { watchScroll } from "./format.js";
import { mountCheck } from "./check.js";
import { mountPlayground } from "./playground.js";
import { mountStepper } from "./stepper.js";

const MOUNTS = [
  [".autograd-widget", mountStepper],
  [".autograd-playground", mountPlayground],
  ["form.autograd-check", mountCheck],
  [".autograd-diagram .autograd-scroll", watchScroll],
];

export function mountAll() {
  for (const [selector, mount] of MOUNTS) {
    for (const el of document.querySelectorAll(selector)) {
      if (el.dataset.mounted) continue;
      el.dataset.mounted = "true";
      try {
        mount(el);
      } catch (err) {
        el.dataset.mounted = "error";
        console.error("autograd widget failed", err);
      }
    }
  }
}

if (window.document$) window.document$.subscribe(mountAll);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
else mountAll();
