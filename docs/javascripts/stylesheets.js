// The stylesheets of features most pages lack (the Run buttons, the Train widget) are not linked by every
// page (mkdocs.yml's extra_css holds only what a first paint needs): the feature's script adds its own, once
// a visit, before it puts anything on the page that the sheet styles. The link goes at the end of the body,
// not in the head: instant navigation removes every element of the head that the next page's head lacks
// (Material's instant/index.ts), and keeps what it does not replace of the body.
import { SITE_ROOT } from "./run/root.js";

/** @type {Map<string, Promise<void>>} */
const added = new Map();

/** Link stylesheets/<name> (once); settles when it has loaded, or failed to (the feature then works unstyled).
 * @param {string} name  @returns {Promise<void>} */
export function addStylesheet(name) {
  let loaded = added.get(name);
  if (!loaded) {
    const link = Object.assign(document.createElement("link"), { rel: "stylesheet" });
    link.href = new URL(`stylesheets/${name}`, SITE_ROOT).href;
    loaded = new Promise((settle) => {
      link.addEventListener("load", () => settle(), { once: true });
      link.addEventListener("error", () => settle(), { once: true });
    });
    document.body.append(link);
    added.set(name, loaded);
  }
  return loaded;
}
