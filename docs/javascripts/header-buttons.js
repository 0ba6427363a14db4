import { h } from "./dom.js";

// The header's menu and search icons are <label>s for the theme's hidden checkboxes (#__drawer,
// #__search): a mouse or a finger opens them, but a keyboard cannot reach them, and a screen reader
// hears no name. Each gets a real <button> in its place, with a name, which says whether what it opens
// is open, and presses the same checkbox. The label stays in the page, hidden: the theme looks it up
// when it starts. The theme puts the cursor in the search box when the label is clicked; the Search
// button does the same, once search is open (a hidden box cannot take the focus, and on a phone only
// a focus that a tap causes brings up the keyboard). (A label cannot just be given role="button":
// ARIA allows no role on a label.) docs/stylesheets/extra.css hides each button where the theme hides
// its label. Space is also added to the colour-scheme toggle, a radio button
// that only Enter (the theme's key handling) switched, and the search dialog gets the name axe asks
// of every dialog (Material's role="dialog" has none). The header stays when instant navigation changes the
// page, so this runs once, from the site's entry (site.js).
export function improveHeader() {
  const dialog = document.querySelector('.md-search[role="dialog"]:not([aria-label])');
  dialog?.setAttribute("aria-label", "Search");
  /** @type {[string, string, string | null][]} */
  const BUTTONS = [
    ["__drawer", "Navigation menu", null],
    ["__search", "Search", ".md-search__input"], // the element to focus once open
  ];
  for (const [id, name, focusOnOpen] of BUTTONS) {
    const toggle = /** @type {HTMLInputElement | null} */ (document.getElementById(id));
    if (!toggle) continue;
    for (const label of document.querySelectorAll(`label.md-header__button[for="${id}"]`)) {
      const icon = [...label.childNodes].map((node) => node.cloneNode(true));
      const button = h("button", { type: "button", class: label.className, "data-for": id, "aria-label": name }, icon);
      const sync = () => button.setAttribute("aria-expanded", String(toggle.checked));
      sync();
      toggle.addEventListener("change", sync);
      button.addEventListener("click", () => {
        toggle.click();
        if (toggle.checked && focusOnOpen) document.querySelector(/** @type {"input"} */ (focusOnOpen))?.focus();
      });
      /** @type {HTMLElement} */ (label).style.display = "none"; // (its `hidden` attribute would lose to the theme's display rule)
      label.before(button);
    }
  }

  // Escape closes search, and the theme then leaves the focus on the page's body: on a phone it goes
  // back to the Search button. (Where the search box is in the header, focusing it would open search
  // again; there the browser's next Tab still starts from the box.)
  const search = /** @type {HTMLInputElement | null} */ (document.getElementById("__search"));
  search?.addEventListener("change", () => {
    if (search.checked) return;
    setTimeout(() => {
      const button = document.querySelector(/** @type {"button"} */ ('button.md-header__button[data-for="__search"]'));
      if (document.activeElement === document.body && button?.checkVisibility()) button.focus();
    });
  });

  // the scheme toggle: the focused radio is the current scheme; its visible label switches to the next
  for (const radio of document.querySelectorAll('input.md-option[name="__palette"]')) {
    if (!(radio instanceof HTMLInputElement)) continue;
    radio.addEventListener("keydown", (ev) => {
      if (ev.key !== " ") return;
      ev.preventDefault(); // Space would scroll the page
      radio.form?.querySelector(/** @type {"label"} */ ("label.md-header__button:not([hidden])"))?.click();
    });
  }
}
