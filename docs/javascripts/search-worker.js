// Material's search worker, with each word of a query reduced to its stem first.
//
// The index is stemmed (mkdocs.yml: search pipeline), so "accumulation" is indexed as "accumul".
// Material's worker appends "*" to every word of a query, so that a word still being typed
// matches, and lunr skips its pipeline, stemmer included, for any word with a "*": the query
// "accumulated*" then finds nothing. Here the whole words are stemmed before Material's worker
// reads the query ("accumulated" -> "accumul", then "accumul*"), so every form of a word finds the
// pages that use any other. overrides/main.html names this file as the search worker in the theme's
// config (Material's own worker's address in ?worker=).
const QUERY = 2; // Material's message type for a query (its worker's SETUP = 0, READY = 1, RESULT = 3)
const WORD = /^[a-z]+$/i;

function stem(query) {
  return query
    .split(/(\s+)/)
    .map((part) => (WORD.test(part) ? self.lunr.stemmer(new self.lunr.Token(part.toLowerCase())).toString() : part))
    .join("");
}

// Registered before Material's own listener, so it sees (and rewrites) each message first.
addEventListener("message", (event) => {
  const message = event.data;
  if (message && message.type === QUERY && typeof message.data === "string" && self.lunr) {
    message.data = stem(message.data);
  }
});

importScripts(new URL(self.location.href).searchParams.get("worker"));
