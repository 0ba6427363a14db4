// An exercise's template, as the page shows it before Edit: its long lines wrap (stylesheets/run.css, its
// exercise loop), each continuation indented four columns past its line's own indentation, as the editor wraps
// them (codemirror-wrapped-line-indent), so that no word of a docstring's hint is out of sight on a phone,
// and a wrapped line does not read as a new one.
const HANG = 4; // columns past the line's own indentation

/** Mark each line of the page's code with its hanging indent (--mg-hang), which the stylesheet wraps it by.
 * @param {Element} highlight  the block's div.highlight */
export function wrapLines(highlight) {
  for (const line of /** @type {NodeListOf<HTMLElement>} */ (
    highlight.querySelectorAll("code > span[id^='__span-']")
  )) {
    const indent = /^ */.exec(line.textContent ?? "")?.[0].length ?? 0;
    line.style.setProperty("--mg-hang", `${indent + HANG}ch`);
  }
}
