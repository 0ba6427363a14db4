"""The reader's own code, read from its source: the line of theirs that a changed line of the rule stands for, and
the expression in it that, put back as the rule's, makes their function right on every case.

A checker finds the one line of its rule that, changed, gives the reader's numbers (microgpt.course.variants). The
change is the rule's, not the reader's: qs[i][j] in the reader's dq gives what the rule gives with ks[i][j] where
ks[t][j] belongs (both factors of ds_t are the same at every t, and the ds_t sum to 0), yet the reader never wrote
ks[i][j]. So before a verdict names an operand as the reader's, it is found in their code: their line has it, or
their expression there, replaced by the rule's, makes their whole function right on every case. Else the verdict
says the change as the rule's, and quotes the reader's line for what the rule's line computes.

The source comes from Python's own record of it (inspect, through linecache, where the page's Python puts each
block's lines); without it, nothing here is found.
"""

import ast
import builtins
import contextlib
import copy
import difflib
import inspect
import io
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from microgpt.course.findings import TheirChange, TheirLine

EXPRESSIONS = frozenset({"operand", "index", "range", "size", "call", "constant", "compare", "term", "alternative"})
STATEMENTS = frozenset({"accumulate"})  # a change of a whole line, found in theirs as it is
UNQUOTED = frozenset({"line", "argument"})  # a line left out has no line of theirs; an argument, no one line
SHOWN = 40  # the rule's code is said in the reader's names up to this long (its numbers written out: V is len(p))
TRIED = 80  # expressions of the reader's tried in the rule's place, at most (a verdict's time stays bounded)


@dataclass(frozen=True)
class Source:
    """The reader's function as its source has it: the tree of its def, its lines, and where they start."""

    function: Callable[..., Any]
    fn: ast.FunctionDef
    text: str  # its source, dedented
    lines: list[str]
    start: int  # the number of its first line in the reader's block or file

    def line(self, node: ast.AST) -> TheirLine:
        k = getattr(node, "lineno", 1)
        return TheirLine(self.start + k - 1, self.lines[k - 1].strip())

    def code(self, node: ast.AST) -> str:
        """A node as the reader wrote it (1e-5, not 1e-05), on one line."""
        written = ast.get_source_segment(self.text, node)
        return " ".join(written.split()) if written else ast.unparse(node)


def source_of(function: Callable[..., Any]) -> Source | None:
    """The reader's function's source, or None where Python has none (a lambda, a function typed at a prompt)."""
    try:
        lines, start = inspect.getsourcelines(function)
        text = textwrap.dedent("".join(lines))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    fn = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(fn, ast.FunctionDef) or fn.name != getattr(function, "__name__", None):
        return None
    return Source(function, fn, text, lines, max(start, 1))


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        for inner in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(stmt, inner, []) if not isinstance(stmt, ast.FunctionDef) else [])


def _written(stmt: ast.stmt) -> set[str]:
    """The names a statement writes: a name assigned, or the list an entry of which is assigned."""
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    found = set()
    for target in targets:
        for node in ast.walk(target):
            while isinstance(node, ast.Subscript):
                node = node.value
            if isinstance(node, ast.Name):
                found.add(node.id)
    return found


def _zeros(stmt: ast.stmt) -> bool:
    """A line that only makes a list of zeros (dw = [[0.0] * n for _ in g]): it computes nothing a slip is in."""
    if not isinstance(stmt, ast.Assign):
        return False
    value: ast.expr = stmt.value
    while isinstance(value, (ast.ListComp, ast.BinOp)):
        value = value.elt if isinstance(value, ast.ListComp) else value.left
    return isinstance(value, ast.List) and all(isinstance(e, ast.Constant) and not e.value for e in value.elts)


def _returned(fn: ast.FunctionDef) -> list[ast.expr]:
    """What the function returns, one expression per part (the last return's)."""
    returns = [s for s in _statements(fn.body) if isinstance(s, ast.Return) and s.value is not None]
    if not returns:
        return []
    value = returns[-1].value
    assert value is not None
    return list(value.elts) if isinstance(value, ast.Tuple) else [value]


@dataclass(frozen=True)
class RuleLine:
    """A changed line of the rule, as the reader's code is searched for it."""

    kind: str
    before: str  # the rule's code
    after: str  # the changed code
    code: str  # the rule's whole line, for a likeness with the reader's
    writes: frozenset[str]  # the names the rule's line writes
    outputs: tuple[str, ...]  # the names the rule returns, one per part
    arguments: tuple[str, ...]  # the rule's arguments, in order
    defined: dict[str, str]  # the rule's own names computed once at its top, each with its code (V: len(p))


def _their_lines(source: Source, rule: RuleLine) -> list[ast.stmt]:
    """The reader's statements that compute what the rule's line computes, the likeliest first: those that write
    the name the rule's writes (for a result, the name the reader returns in its place), else the return."""
    returned = _returned(source.fn)
    names = set()
    for name in rule.writes:
        if name in rule.outputs and len(returned) == len(rule.outputs):
            mine = returned[rule.outputs.index(name)]
            names |= {mine.id} if isinstance(mine, ast.Name) else set()
        else:
            names.add(name)
    found: list[ast.stmt] = [s for s in _statements(source.fn.body) if _written(s) & names and not _zeros(s)]
    if not found and rule.writes & set(rule.outputs):
        found = [s for s in _statements(source.fn.body) if isinstance(s, ast.Return)]

    def likeness(stmt: ast.stmt) -> float:
        return difflib.SequenceMatcher(None, ast.unparse(stmt), rule.code).ratio()

    return sorted(found, key=likeness, reverse=True)


def _in_their_names(source: Source, rule: RuleLine, code: str) -> Any:
    """The rule's code written with the reader's names: the rule's arguments as theirs (by place), the rule's own
    numbers computed once (V, n, d_h) as their code; None where it reads a name the reader's function has not."""
    try:
        parsed = ast.parse(code).body[0]
    except (SyntaxError, IndexError):
        return None
    node: Any = parsed.value if isinstance(parsed, ast.Expr) else parsed
    theirs = [a.arg for a in source.fn.args.args]
    renamed = dict(zip(rule.arguments, theirs)) if len(theirs) == len(rule.arguments) else {}
    known = _names_in_scope(source)

    class Rename(ast.NodeTransformer):
        expanding: set[str] = set()

        def visit_Name(self, n: ast.Name) -> Any:
            if n.id in renamed:
                return ast.copy_location(ast.Name(renamed[n.id], n.ctx), n)
            if n.id not in known and n.id in rule.defined and n.id not in self.expanding:
                self.expanding.add(n.id)
                inner = self.visit(ast.parse(rule.defined[n.id], mode="eval").body)
                self.expanding.discard(n.id)
                return inner
            return n

    node = Rename().visit(node)
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return node if used <= known else None


def _names_in_scope(source: Source) -> set[str]:
    """The names the reader's function can read: its arguments and locals, its module's names, the builtins."""
    fn = source.fn
    names = {a.arg for a in fn.args.args} | set(source.function.__globals__) | set(dir(builtins))
    return names | {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _replaced(tree: ast.AST, old: ast.AST, new: ast.AST) -> Any:
    """A copy of tree with the node old (found by identity) replaced by a copy of new; tree is left as it was."""
    memo: dict[int, Any] = {}
    copied = copy.deepcopy(tree, memo)
    if copied is memo.get(id(old)) or tree is old:
        return copy.deepcopy(new)
    target = memo[id(old)]

    class Swap(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> Any:
            if node is target:
                return copy.deepcopy(new)
            return self.generic_visit(node)

    return Swap().visit(copied)


def _tried(source: Source, stmts: list[ast.stmt], after: ast.expr | None) -> list[ast.expr]:
    """The reader's expressions to put the rule's in place of: in their lines for the rule's first, each once."""
    value = (ast.Name, ast.Subscript, ast.Attribute, ast.Call, ast.Constant)
    calls = {id(n.func) for n in ast.walk(source.fn) if isinstance(n, ast.Call)}
    whiles = {id(n) for w in ast.walk(source.fn) if isinstance(w, ast.While) for n in ast.walk(w.test)}

    def fits(node: ast.AST) -> bool:
        if not isinstance(node, ast.expr) or id(node) in calls or id(node) in whiles:
            return False
        if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            return False
        if after is None:
            return True
        return type(node) is type(after) or (isinstance(node, value) and isinstance(after, value))

    found: list[ast.expr] = []
    seen: set[int] = set()
    for stmt in [*stmts, *_statements(source.fn.body)]:
        for node in ast.walk(stmt):
            if id(node) not in seen and isinstance(node, ast.expr) and fits(node):
                seen.add(id(node))
                found.append(node)
    return found[:TRIED]


def _with(source: Source, old: ast.AST, new: ast.AST) -> Callable[..., Any] | None:
    """The reader's function with one expression replaced, compiled as they wrote it (None if it cannot be)."""
    fn = _replaced(source.fn, old, new)
    module = ast.Module([ast.fix_missing_locations(fn)], [])
    namespace = dict(source.function.__globals__)
    try:
        exec(compile(module, "<your function, one expression changed>", "exec"), namespace)  # noqa: S102
    except Exception:  # noqa: BLE001 (a change that does not compile fixes nothing)
        return None
    made = namespace.get(source.fn.name)
    return made if callable(made) else None


def their_change(
    function: Callable[..., Any], rule: RuleLine, right: Callable[[Callable[..., Any]], bool]
) -> TheirChange | None:
    """The reader's line for the rule's changed line, and their expression in it where it is found: the changed
    code itself in their line, or an expression of theirs that, replaced by the rule's code, makes their function
    right on every case (right(function) says); None where their source or line is not found."""
    source = source_of(function)
    if source is None or source.function.__code__.co_freevars or rule.kind in UNQUOTED:
        return None
    stmts = _their_lines(source, rule)
    before, after = _in_their_names(source, rule, rule.before), _in_their_names(source, rule, rule.after)
    said = ast.unparse(before) if before is not None else ""
    changed = ast.unparse(after) if after is not None else ""
    shown = said if len(said) <= max(SHOWN, len(rule.before)) else rule.before  # the rule's numbers written out
    quiet = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())
    with quiet[0], quiet[1]:
        if rule.kind in EXPRESSIONS | STATEMENTS:  # the changed code itself, in their line: theirs as it is
            for stmt in [*stmts, *_statements(source.fn.body)] if rule.kind in STATEMENTS else stmts:
                for node in ast.walk(stmt):
                    if not (isinstance(node, (ast.expr, ast.stmt)) and changed and ast.unparse(node) == changed):
                        continue
                    fixed = _with(source, node, before) if before is not None else None
                    if before is None or (fixed is not None and right(fixed)):  # checked where it can be
                        return TheirChange(source.line(node), source.code(node), shown, changed)
        if rule.kind in EXPRESSIONS and isinstance(before, ast.expr):
            for node in _tried(source, stmts, after if isinstance(after, ast.expr) else None):
                if ast.unparse(node) == said:
                    continue
                fixed = _with(source, node, before)
                if fixed is not None and right(fixed):
                    return TheirChange(source.line(node), source.code(node), shown, changed)
    return TheirChange(source.line(stmts[0]), "", shown, changed) if stmts else None
