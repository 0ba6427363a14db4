// One helper: an element, where props are properties, except "aria-*", "role" and "data-*" (attributes).
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith("aria-") || key.startsWith("data-") || key === "role") el.setAttribute(key, value);
    else el[key] = value;
  }
  el.append(...children);
  return el;
}
