// The one helper the site's scripts make elements with: h() for HTML, svg() for the graphs' SVG.
//
// attrs are attributes, as HTML writes them ("class", "for", "aria-label", "data-step", "viewBox"): a value of
// true gives the bare attribute, false, null and undefined leave it out, anything else is written as text. A
// function under an "on…" name ("onclick") is added as a listener for that event instead. Children are nodes
// or text; null, undefined and false among them are skipped, and arrays are flattened, so a caller can write
// `cond && node` or a mapped list in place.

/** @typedef {string | number | boolean | null | undefined | ((event: any) => void)} AttrValue */
/** @typedef {Record<string, AttrValue>} Attrs */
/** @typedef {Node | string | number | null | undefined | false} Child */
/** @typedef {Child | Child[]} Children */

/** @param {Element} el  @param {Attrs} attrs  @param {Children[]} children */
function fill(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === "function") {
      if (!name.startsWith("on")) throw new TypeError(`dom.h: a function for "${name}", which is no event`);
      el.addEventListener(name.slice(2), value);
    } else if (value === true) el.setAttribute(name, "");
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false)
      el.append(typeof child === "number" ? String(child) : child);
  }
  return el;
}

/**
 * An HTML element with these attributes and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Children} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  return /** @type {HTMLElementTagNameMap[K]} */ (fill(document.createElement(tag), attrs, children));
}

/**
 * An SVG element with these attributes and children.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Children} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  return /** @type {SVGElementTagNameMap[K]} */ (fill(el, attrs, children));
}
