// Numbers as every widget shows them; docs/hooks/traces.py's fmt() is the same rule.
export function fmt(x) {
  if (Number.isInteger(x)) return String(x);
  const s = x.toFixed(4).replace(/0+$/, "").replace(/\.$/, "");
  return s === "-0" ? "0" : s;
}

// Parse the data-* JSON the build embedded; the browser never computes a gradient of its own.
export function readJSON(el, name) {
  return JSON.parse(el.dataset[name]);
}

export function h(tag, attrs = {}, ...kids) {
  const svg = ["svg", "g", "rect", "text", "line", "path", "defs", "marker", "title", "tspan"].includes(tag);
  const el = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) el.append(kid);
  return el;
}
