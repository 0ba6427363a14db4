// Editable leaves: a widget dispatches `mg:leaves` with {preset, leaves}; the real engine, running in
// the browser, computes the new trace (microgpt.course.trace), and the widget draws it. No JavaScript
// arithmetic stands in for the engine: on any failure the widget gets a message instead.
import { getPython } from "./python.js";

/** The last line of a Python traceback ("ValueError: ..."), or the error's message. */
function lastLine(err) {
  const lines = String(err.message ?? err).trim().split("\n");
  return lines[lines.length - 1];
}

export async function onLeaves(widget, detail) {
  const { preset, leaves } = detail ?? {};
  try {
    const python = await getPython();
    widget.mgSetTrace?.(JSON.parse(await python.traceJson(String(preset), JSON.stringify(leaves ?? {}))));
  } catch (err) {
    widget.mgSetError?.(`Python could not compute this: ${lastLine(err)}`);
  }
}
