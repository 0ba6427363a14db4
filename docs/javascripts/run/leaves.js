// Editable leaves: a widget dispatches `mg:leaves` with a request ({preset, leaves, trace, error}); the real
// engine, running in the browser, computes the new trace (microgpt.course.trace), and the widget draws it.
// No JavaScript arithmetic stands in for the engine: on any failure the widget gets a message instead.
import { getPython } from "./python.js";

/** The last line of a Python traceback ("ValueError: ..."), or the error's message. @param {unknown} err */
function lastLine(err) {
  const lines = String(/** @type {{ message?: string }} */ (err)?.message ?? err)
    .trim()
    .split("\n");
  return lines[lines.length - 1];
}

/** @param {import("../widgets/leaves.js").LeavesRequest} request */
export async function onLeaves(request) {
  try {
    const python = await getPython();
    request.trace(JSON.parse(await python.traceJson(String(request.preset), JSON.stringify(request.leaves))));
  } catch (err) {
    request.error(`Python could not compute this: ${lastLine(err)}`);
  }
}
