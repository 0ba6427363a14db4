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
import itertools
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from microgpt.course.findings import RowsOfOneList, SwappedInCode, TheirChange, TheirLine

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


OPERATORS = {ast.Add: "+=", ast.Sub: "-="}


def _written_as(stmt: ast.stmt) -> tuple[str, ast.expr, ast.expr] | None:
    """How a line writes one target, the target and the value: ("+=", dqs[i][j], ...); None for any other line."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        return "=", stmt.targets[0], stmt.value
    if isinstance(stmt, ast.AugAssign) and type(stmt.op) in OPERATORS:
        return OPERATORS[type(stmt.op)], stmt.target, stmt.value
    return None


def _their_operator(
    source: Source, stmts: list[ast.stmt], before: ast.stmt, after: Any, right: Callable[[Callable[..., Any]], bool]
) -> TheirChange | None:
    """A line of theirs that writes the rule's target with the changed rule's operator (= where += belongs), when
    writing it with the rule's operator instead makes their whole function right: said as the operator alone, in
    their own line, since the rest of their line is theirs and right."""
    rule, changed = _written_as(before), _written_as(after) if isinstance(after, ast.stmt) else None
    if rule is None or changed is None or rule[0] == changed[0]:
        return None
    for stmt in stmts:
        theirs = _written_as(stmt)
        if theirs is None or theirs[0] != changed[0] or ast.unparse(theirs[1]) != ast.unparse(rule[1]):
            continue
        _, target, value = theirs
        op = {"+=": ast.Add(), "-=": ast.Sub()}.get(rule[0])
        if op is None:
            fix: ast.stmt = ast.Assign([target], value)
        elif isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            fix = ast.AugAssign(target, op, value)
        else:
            continue
        fixed = _with(source, stmt, ast.copy_location(fix, stmt))
        if fixed is not None and right(fixed):
            return TheirChange(source.line(stmt), changed[0], rule[0], changed[0])
    return None


def _a_row(node: ast.expr) -> bool:
    """A list display, a list comprehension or a repeated list: a row."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return isinstance(node.left, ast.List) or isinstance(node.right, ast.List)
    return isinstance(node, (ast.List, ast.ListComp))


def rows_of_one_list(
    function: Callable[..., Any],
    changes: Callable[[Callable[..., Any]], bool],
    right: Callable[[Callable[..., Any]], bool],
) -> RowsOfOneList | None:
    """A [row] * m in the reader's code that, made m rows of their own, changes their answer (changes(fixed)
    says): the rows of one list, written into, are the slip or one of them. None where there is none, or no source."""
    source = source_of(function)
    if source is None or source.function.__code__.co_freevars:
        return None
    names = {id(s.value): ast.unparse(s.targets[0]) for s in ast.walk(source.fn) if isinstance(s, ast.Assign)}
    quiet = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())
    with quiet[0], quiet[1]:
        for node in ast.walk(source.fn):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
                continue
            for row, count in ((node.left, node.right), (node.right, node.left)):
                if not (isinstance(row, ast.List) and len(row.elts) == 1 and _a_row(row.elts[0])):
                    continue
                each = ast.comprehension(
                    ast.Name("_", ast.Store()), ast.Call(ast.Name("range", ast.Load()), [count], []), [], 0
                )
                fix = ast.ListComp(row.elts[0], [each])
                fixed = _with(source, node, fix)
                if fixed is not None and changes(fixed):
                    made = f"[{source.code(row.elts[0])} for _ in range({source.code(count)})]"
                    name = names.get(id(node), "")
                    return RowsOfOneList(source.line(node), name, source.code(node), made, right(fixed))
    return None


SWAPS = 60  # pairs of the reader's expressions tried in each other's place, at most (a verdict's time stays bounded)


def _pairs(node: ast.AST) -> Iterator[tuple[ast.expr, ast.expr]]:
    """Pairs of expressions a learner puts in each other's place: two arguments of one call, two entries of one
    tuple or list, or the entries at one place in two tuples of one tuple ((wv, dks), (wk, dvs))."""
    value = (ast.Name, ast.Subscript, ast.Attribute, ast.ListComp, ast.Call)
    if isinstance(node, ast.Call):
        groups = [node.args]
    elif isinstance(node, (ast.Tuple, ast.List)):
        rows = [e.elts for e in node.elts if isinstance(e, (ast.Tuple, ast.List))]
        groups = [node.elts, *(list(column) for column in zip(*rows))]
    else:
        return
    for group in groups:
        kept = [e for e in group if isinstance(e, value)]
        for i, a in enumerate(kept):
            for b in kept[i + 1 :]:
                if ast.unparse(a) != ast.unparse(b):
                    yield a, b


def _places(tree: ast.AST) -> dict[int, tuple[ast.AST, str, int | None]]:
    """Where each node of a tree is held: its parent, the field, and the index in that field's list (or None)."""
    places: dict[int, tuple[ast.AST, str, int | None]] = {}
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        places[id(item)] = (parent, name, k)
            elif isinstance(value, ast.AST):
                places[id(value)] = (parent, name, None)
    return places


def _put(place: tuple[ast.AST, str, int | None], node: ast.AST) -> None:
    parent, name, k = place
    if k is None:
        setattr(parent, name, node)
    else:
        getattr(parent, name)[k] = node


@contextlib.contextmanager
def _exchanged(places: dict[int, tuple[ast.AST, str, int | None]], a: ast.AST, b: ast.AST) -> Iterator[None]:
    """The tree with the nodes a and b in each other's place, for the block's time (a copy of a large tree for
    every pair tried would cost more than the tries)."""
    at_a, at_b = places[id(a)], places[id(b)]
    _put(at_a, b)
    _put(at_b, a)
    try:
        yield
    finally:
        _put(at_a, a)
        _put(at_b, b)


def swapped_pair(function: Callable[..., Any], right: Callable[[Callable[..., Any]], bool]) -> SwappedInCode | None:
    """Two expressions of the reader's, put in each other's place, that make their function right on every case:
    the arguments of a call in the wrong order, two names exchanged in a tuple. None where none does."""
    source = source_of(function)
    if source is None or source.function.__code__.co_freevars:
        return None
    whiles = {id(n) for w in ast.walk(source.fn) if isinstance(w, ast.While) for n in ast.walk(w)}  # may not end
    every = (pair for node in ast.walk(source.fn) if id(node) not in whiles for pair in _pairs(node))
    pairs = list(itertools.islice(every, SWAPS))
    places = _places(source.fn)
    quiet = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())
    with quiet[0], quiet[1]:
        for a, b in pairs:
            namespace = dict(source.function.__globals__)
            with _exchanged(places, a, b):
                try:
                    code = compile(ast.Module([source.fn], []), "<your function, two expressions exchanged>", "exec")
                except Exception:  # noqa: BLE001 (an exchange that does not compile fixes nothing)
                    continue
            exec(code, namespace)  # noqa: S102
            made = namespace.get(source.fn.name)
            if callable(made) and right(made):
                return SwappedInCode(source.line(a), source.code(a), source.code(b))
    return None


def writes_number(function: Callable[..., Any], code: str) -> bool | None:
    """Whether the reader's function has the number code ("4") written in it; None where its source is not at hand."""
    source = source_of(function)
    try:
        number = ast.literal_eval(code)
    except (ValueError, SyntaxError):
        return None
    if source is None:
        return None
    return any(isinstance(n, ast.Constant) and n.value == number for n in ast.walk(source.fn))


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
        if rule.kind in EXPRESSIONS and before is not None and changed:  # the changed code on another line of
            # theirs (the list a loop reads, (wv, dmixed)): said as theirs only where putting the rule's back there
            # makes their function right, so that the line quoted is the one to change
            for node in ast.walk(source.fn):
                if isinstance(node, ast.expr) and not isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
                    if ast.unparse(node) == changed:
                        fixed = _with(source, node, before)
                        if fixed is not None and right(fixed):
                            return TheirChange(source.line(node), source.code(node), shown, changed)
        if rule.kind in STATEMENTS and isinstance(before, ast.stmt):  # their line writes as the changed rule's
            found = _their_operator(source, stmts, before, after, right)
            if found is not None:
                return found
        if rule.kind in EXPRESSIONS and isinstance(before, ast.expr):
            for node in _tried(source, stmts, after if isinstance(after, ast.expr) else None):
                if ast.unparse(node) == said:
                    continue
                fixed = _with(source, node, before)
                if fixed is not None and right(fixed):
                    return TheirChange(source.line(node), source.code(node), shown, changed)
    return TheirChange(source.line(stmts[0]), "", shown, changed) if stmts else None
