// The one helper the site's scripts make elements with (run/, train/).

/**
 * An element: props are its properties, except "aria-*", "data-*" and "role", which are attributes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {...(Node | string)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith("aria-") || key.startsWith("data-") || key === "role") el.setAttribute(key, String(value));
    else /** @type {any} */ (el)[key] = value;
  }
  el.append(...children);
  return el;
}
