// The GPT chapter's exercises: a piece of the backward the reader wrote and its checker accepted is kept in
// localStorage, keyed by the piece's name, so that it survives moving between pages and a reload. Every run
// offers the kept pieces to the page's Python (microgpt.course.runner), which runs each again, through its
// checker, the first time a block asks the capstone for its pieces.
const PREFIX = "microgpt:piece:";

/** After a run: remember the code of each piece a checker accepted and kept as the reader's own. A page's
 * solution, run as the page shows it, is accepted but not kept, so it never replaces the reader's piece.
 * @param {string[]} sources  @param {import("./python.js").RunResult} result */
export function rememberPieces(sources, result) {
  for (const verdict of result.verdicts ?? []) {
    if (!verdict.kept) continue;
    try {
      localStorage.setItem(PREFIX + verdict.piece, JSON.stringify(sources));
    } catch {
      // storage full or refused (a private window): the piece lasts as long as this page's Python
    }
  }
}

/** The pieces kept so far: {name: the sources of the chain that defined it}.
 * @returns {Record<string, string[]>} */
export function keptPieces() {
  /** @type {Record<string, string[]>} */
  const pieces = {};
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key?.startsWith(PREFIX)) pieces[key.slice(PREFIX.length)] = JSON.parse(localStorage.getItem(key) ?? "[]");
    }
  } catch {
    return {}; // no storage here
  }
  return pieces;
}
