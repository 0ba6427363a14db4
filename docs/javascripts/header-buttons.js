// The header's menu and search icons are <label>s for the theme's hidden checkboxes (#__drawer,
// #__search): a mouse or a finger opens them, but a keyboard cannot reach them, and a screen reader
// hears no name. Each becomes a real <button> with a name, which says whether what it opens is open;
// it presses the same checkbox, so the theme's own handling is unchanged. (A label cannot simply be
// given role="button": ARIA allows no role on a label.) docs/stylesheets/extra.css hides each one
// where the theme hides its label. Space is also added to the colour-scheme toggle, a radio button
// that only Enter (the theme's key handling) switched.
(() => {
  const BUTTONS = [
    ["__drawer", "Navigation menu"],
    ["__search", "Search"],
  ];
  for (const [id, name] of BUTTONS) {
    const toggle = document.getElementById(id);
    if (!toggle) continue;
    for (const label of document.querySelectorAll(`label.md-header__button[for="${id}"]`)) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = label.className;
      button.dataset.for = id;
      button.setAttribute("aria-label", name);
      button.append(...label.childNodes); // the icon
      const sync = () => button.setAttribute("aria-expanded", String(toggle.checked));
      sync();
      toggle.addEventListener("change", sync);
      button.addEventListener("click", () => toggle.click());
      label.replaceWith(button);
    }
  }

  // Escape closes search, and the theme then leaves the focus on the page's body: on a phone it goes
  // back to the Search button. (Where the search box is in the header, focusing it would open search
  // again; there the browser's next Tab still starts from the box.)
  const search = document.getElementById("__search");
  search?.addEventListener("change", () => {
    if (search.checked) return;
    setTimeout(() => {
      const button = document.querySelector('.md-header__button[data-for="__search"]');
      if (document.activeElement === document.body && button?.checkVisibility()) button.focus();
    });
  });

  // the scheme toggle: the focused radio is the current scheme; its visible label switches to the next
  for (const radio of document.querySelectorAll('input.md-option[name="__palette"]')) {
    radio.addEventListener("keydown", (ev) => {
      if (ev.key !== " ") return;
      ev.preventDefault(); // Space would scroll the page
      radio.form?.querySelector("label.md-header__button:not([hidden])")?.click();
    });
  }
})();
