// The GPT chapter's exercises: a piece of the backward the reader wrote and its checker accepted is kept in
// localStorage, keyed by the piece's name, so that it survives moving between pages and a reload. Before
// a block that uses the capstone runs, each kept piece the Python in this page lacks is run again, which
// hands it to microgpt.course.capstone (its checker keeps what it accepts).
const PREFIX = "microgpt:piece:";
const ACCEPTED = /^✓ \w+ agrees with the engine/m; // a checker's success line (microgpt/course/checking.py)
const USES_CAPSTONE = /\bmicrogpt\.course(\.capstone\b| import .*\bcapstone\b)/;
const CHECKER = /\bcheck_(\w+)\(/; // check_linear_backward(...) checks the piece linear_backward

/** After a run: if a checker accepted a piece and kept it as the reader's own, remember the code that defined it.
 * A page's solution, run as the page shows it, is accepted but not kept, so it never replaces the reader's piece. */
export async function rememberPiece(python, sources, stdout, ok) {
  const name = CHECKER.exec(sources.join("\n"))?.[1];
  if (!ok || !name || !ACCEPTED.test(stdout)) return;
  const yours = String(await python.runPython("from microgpt.course import checkers; checkers.last_kept_as_yours()"));
  if (yours !== name) return;
  try {
    localStorage.setItem(PREFIX + name, JSON.stringify(sources));
  } catch {
    // storage full or refused (a private window): the piece lasts as long as this page's Python
  }
}

function kept() {
  const pieces = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key?.startsWith(PREFIX)) pieces.push([key.slice(PREFIX.length), JSON.parse(localStorage.getItem(key))]);
    }
  } catch {
    return []; // no storage here
  }
  return pieces;
}

/** Before a run that uses the capstone: give this Python every remembered piece it does not hold yet. */
export async function restorePieces(python, sources) {
  if (!sources.some((s) => USES_CAPSTONE.test(s))) return;
  const pieces = kept();
  if (!pieces.length) return;
  const held = String(await python.runPython("from microgpt.course import capstone; ' '.join(capstone.yours())"));
  for (const [name, code] of pieces) {
    if (held.split(" ").includes(name)) continue;
    await python.runChain(code, code.map((_, k) => `<your ${name}, part ${k + 1}>`)); // its output is not shown
  }
}
