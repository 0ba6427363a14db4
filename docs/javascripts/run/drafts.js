// The reader's edits of a block, kept in localStorage as they type, so that neither moving to another
// page nor a reload loses them. A draft remembers a fingerprint of the page's code it was made from:
// once the page's code has changed (a new version of the site), the old draft is not brought back over it.
const PREFIX = "microgpt:draft:";

/** @typedef {{ of: string, text: string }} Draft  of: the fingerprint of the page's code it edits */

/** FNV-1a of the text, and its length: enough to tell one version of a block's code from another.
 * @param {string} text */
function fingerprint(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `${text.length}:${hash.toString(16)}`;
}

/** Where the draft of a block lives: its page and its number there. @param {string} page  @param {string} n */
const keyOf = (page, n) => `${PREFIX}${page}#${n}`;

/** The reader's draft of this block, if they left one for this version of its code.
 * @param {string} page  @param {string} n  @param {string} original  @returns {string | null} */
export function loadDraft(page, n, original) {
  try {
    const draft = /** @type {Draft | null} */ (JSON.parse(localStorage.getItem(keyOf(page, n)) ?? "null"));
    return draft && draft.of === fingerprint(original) && draft.text !== original ? draft.text : null;
  } catch {
    return null; // no storage here (a private window), or not ours
  }
}

/** Keep text as the reader's draft of the block; the page's own code is no draft.
 * @param {string} page  @param {string} n  @param {string} original  @param {string} text */
export function saveDraft(page, n, original, text) {
  try {
    if (text === original) localStorage.removeItem(keyOf(page, n));
    else localStorage.setItem(keyOf(page, n), JSON.stringify({ of: fingerprint(original), text }));
  } catch {
    // storage full or refused: the edit lasts as long as the page
  }
}

/** Forget the draft (Reset). @param {string} page  @param {string} n */
export function dropDraft(page, n) {
  try {
    localStorage.removeItem(keyOf(page, n));
  } catch {
    // nothing kept, nothing to forget
  }
}
