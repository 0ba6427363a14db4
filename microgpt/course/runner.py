"""The Python side of a page's Run button: it runs a page's blocks in the reader's browser and says how it went.

The page's worker (docs/javascripts/run/worker.js) starts Python with this package installed and calls
these functions; each returns JSON text, which the page reads as it is. Nothing here parses printed
output: what a checker decided comes from its Verdict (microgpt.course.checking), where an error
happened from the traceback's frames.

A run's result:
    stdout, stderr   what the blocks printed
    ok               the chain ran to its end
    error            null, or {type, message, part, line, column}: the exception that stopped the chain, and
                     where in the reader's blocks it last went through (part: the block's index in the chain;
                     line: 1-based in that block), or part and line null when no frame is in the blocks; column:
                     1-based, where a SyntaxError's parser stopped, else null. A SyntaxError's message is the
                     parser's alone ("expected ':'"), without the block's file name; a NotImplementedError
                     without one says which function is not written yet
    verdicts         [{piece, ok, text, kept, frames: [{file, line, function, source, part}], error}]: each
                     checker's verdict, in order; a frame's part is the block it is in, or null; error: null, or
                     {type, message}, the exception the reader's function raised (not a body not written yet)
    yours            the names of the reader's pieces the capstone used, when the run asked it for its
                     pieces; else []

A checker's first run in a Python makes its piece's cases, and that is most of its time; a Stop ends that
Python. So the page asks each Python for the cases it made (cases_made) and hands them to every fresh one
(take_cases): made once per visit, not once per Python.
"""

import contextlib
import dataclasses
import functools
import gc
import io
import json
import linecache
import pickle
import sys
import traceback
import types
from typing import Any

from microgpt.course import checking, kept


def block_name(part: int, parts: int) -> str:
    """The file name a chain's block is compiled under: it is what tracebacks show."""
    return "<example>" if parts == 1 else f"<example, part {part + 1} of {parts}>"


def run_chain(sources: list[str], offered: dict[str, list[str]] | None = None) -> str:
    """Run one chain of blocks in one fresh namespace, as the test suite does; the result as JSON.

    offered: the code of pieces the reader wrote in an earlier visit, by name (the page keeps them); each
    runs again, through its checker, the first time this run asks the capstone for its pieces.
    """
    for name, code in (offered or {}).items():
        kept.offer(name, functools.partial(_run_quietly, code, name))
    checking.take_verdicts()
    kept.take_asked()
    names = [block_name(k, len(sources)) for k in range(len(sources))]
    out, err = io.StringIO(), io.StringIO()
    error = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        error = _run(sources, names)
    verdicts = checking.take_verdicts()
    parts = {name: k for k, name in enumerate(names)}
    result: dict[str, Any] = {
        "stdout": out.getvalue(),
        "stderr": err.getvalue(),
        "ok": error is None,
        "error": None if error is None else _where(error, parts),
        "verdicts": [_located(verdict.as_dict(), parts) for verdict in verdicts],
        "yours": kept.yours() if kept.take_asked() else [],
    }
    kept.take_asked()  # yours() above asked too
    return json.dumps(result)


def _run(sources: list[str], names: list[str]) -> BaseException | None:
    """exec each block in one namespace; the exception that stopped them (its traceback printed), or None."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    try:
        for source, name in zip(sources, names):
            linecache.cache[name] = (len(source), None, source.splitlines(True), name)  # lines in tracebacks
            try:
                exec(compile(source, name, "exec"), namespace)
            except BaseException as error:  # SystemExit and KeyboardInterrupt too: the page must survive them
                tb = error.__traceback__.tb_next if error.__traceback__ else None  # hide this function's frame
                traceback.print_exception(type(error), error, tb)
                return error
        return None
    finally:
        unlink_graphs(namespace)  # before the namespace lets go of them
        namespace.clear()  # no cycle through the globals left: everything goes now, without waiting for gc


def _where(error: BaseException, parts: dict[str, int]) -> dict[str, Any]:
    """The error as the page shows it: its type, its message, and the last place in the blocks it went through."""
    mine = [frame for frame in checking.readers_frames(error) if frame.file in parts]
    last = mine[-1] if mine else None
    message = str(error)
    column = None
    if isinstance(error, SyntaxError):
        message, column = error.msg, error.offset
    elif isinstance(error, NotImplementedError) and not message and last:
        message = f"{last.function} is not written yet: its body still raises NotImplementedError"
    return {
        "type": type(error).__name__,
        "message": message,
        "part": parts[last.file] if last else None,
        "line": last.line if last else None,
        "column": column,
    }


def _located(verdict: dict[str, Any], parts: dict[str, int]) -> dict[str, Any]:
    for frame in verdict["frames"]:
        frame["part"] = parts.get(frame["file"])
    return verdict


def _run_quietly(sources: list[str], name: str) -> None:
    """Run the code of a piece the reader wrote before; what it prints is not shown."""
    names = [f"<your {name}, part {k + 1}>" for k in range(len(sources))]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), checking.set_apart():
        _run(sources, names)


def unlink_graphs(namespace: dict[str, Any]) -> None:
    """Let every Value a finished run can still reach go of its children, from the roots down.

    Freeing a Value frees its children, recursively, and in WebAssembly those nested calls use the
    browser's own call stack, which CPython's guard cannot see: dropping a chain of a few thousand
    Values would crash the interpreter. Unlinked first, each Value is freed on its own.
    """
    engine = sys.modules.get("microgpt.engine")
    if engine is None:
        return
    value_type = engine.Value
    skip = (type, types.ModuleType, types.BuiltinFunctionType, int, float, str, bytes)
    seen: set[int] = set()
    stack: list[Any] = [namespace]
    values: list[Any] = []
    while stack:  # the Values the namespace reaches, through lists, dicts, objects, closures
        obj = stack.pop()
        if isinstance(obj, value_type):
            values.append(obj)
        elif id(obj) in seen or isinstance(obj, skip):
            continue  # classes, modules and builtins outlive the run; numbers and strings hold nothing
        elif isinstance(obj, types.FunctionType) and obj.__globals__ is not namespace:
            continue  # a function from a module: what it reaches belongs to the module
        else:
            seen.add(id(obj))
            stack.extend(gc.get_referents(obj))
    while values:  # the stack holds each child before its parent lets go of it
        value = values.pop()
        children = value._children
        if children:
            value._children = ()
            values.extend(children)


def cases_made(known: list[str]) -> dict[str, bytes]:
    """The cases this Python holds of each piece not in known (the names the page has), pickled, by piece."""
    checkers = sys.modules.get("microgpt.course.checkers")  # not imported: no checker has run, no case is made
    if checkers is None:
        return {}
    held = {name: piece.cases for name, piece in checkers.PIECES.items() if name not in known}
    return {
        name: pickle.dumps([dataclasses.replace(case, kept={}) for case in cases.made])  # kept: remade when asked
        for name, cases in held.items()
        if isinstance(cases, checking.Cases) and cases.made is not None
    }


def take_cases(made: dict[str, bytes]) -> None:
    """Hold the cases another Python of this page made (cases_made), for the pieces this one has not made yet."""
    from microgpt.course.checkers import PIECES  # on first use: a page whose blocks call no checker never loads them

    for name, blob in made.items():
        cases = PIECES[name].cases
        if isinstance(cases, checking.Cases) and cases.made is None:
            cases.made = pickle.loads(blob)  # made by the page's own Python, from this same wheel


def trace_json(preset: str, leaves_json: str) -> str:
    """The step-through widget's trace of a preset graph with the reader's leaf values, as JSON."""
    from microgpt.course.trace import trace_preset  # on first use: only a graph whose leaves the reader edits needs it

    return json.dumps(trace_preset(preset, json.loads(leaves_json)))


# ---------------------------------------------------------------------------- the Train widget
# The training page's Train widget (docs/javascripts/train/) drives one run of microgpt.course.live in its
# own worker, a tick at a time; the run lives here between the worker's messages.
_live: Any = None


def live_start(values_json: str) -> str:
    """Start a training run with the reader's settings ({name: number}, as JSON); what it is, as JSON."""
    from microgpt.course.live import LiveRun  # on first use: only the Train widget needs it

    global _live
    _live = None  # the previous run's model goes before the next is built
    _live = LiveRun(**json.loads(values_json))
    return str(_live.info_json())


def live_tick() -> str:
    """About 50 ms of the run's work: its steps and reports, as JSON."""
    return str(_running().tick_json())


def live_checkpoint() -> str:
    """The run's model as a checkpoint file's text (python -m microgpt sample --ckpt reads it)."""
    return str(_running().checkpoint_text())


def live_end() -> None:
    """Let the run go (Reset): its model is freed."""
    global _live
    _live = None


def _running() -> Any:
    if _live is None:
        raise RuntimeError("no training run: start one first")
    return _live
