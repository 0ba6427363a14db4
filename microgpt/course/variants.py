"""Every one-line change of a piece's rule: which of them gives a reader's answer, and how to say it.

A slip is one changed line, and it runs through everything computed after it: a scale written 1/d_h in
the forward pass changes the weights, the scores' gradient and every result built on them, so the answer
is no simple transformation of the right one (a factor, a shift, a term missing). What it is, exactly, is
the rule with that one line changed. So the checker changes the rule's lines (microgpt.course.references),
one at a time, in the ways a learner's line goes wrong, runs each changed rule on the same cases, and
names the change whose answers are the reader's on every case: where (the line, by what it computes)
and how (what was written where what belongs).

This is mutation analysis run backwards, with an error model of the kind Singh, Gulwani and
Solar-Lezama use to correct students' programs ("Automated feedback generation for introductory
programming assignments", PLDI 2013): a small set of rewrite rules, each one slip a learner makes.
Here they are:

    operand     another list or number where one belongs (ks[t][j] for vs[t][j], w[i][j] for x[j])
    index       another index (x[i] for x[j]), one off (h[i - 1]), the first or the last, counted from the end,
                the two of a matrix swapped (a transpose)
    range       a loop one short or one long, or starting at 1; a bound for another (the causal limit)
    size        a size written as the page's number (16 for len(x)), or off by one (T - 1)
    term        a term or a factor left out, a sign, an operator (// for /, * for /), two sides swapped
    call        sqrt or exp left out, a list's length for its sum (len(e) for sum(e))
    constant    a constant changed (eps left out, r**2 for r**3)
    compare     another comparison (>= for >, != for ==)
    accumulate  = where += belongs (each pass replaces the sum so far), or -=
    line        a line left out
    argument    an argument taken for another (ks for qs), softmax applied again, a size argument as 1
    alternative another way to write a line, listed in references.ALTERNATIVES (the heads' slices)

Each change knows which parts of the answer it can reach (a data-flow pass over the rule), so only the
changes that can explain every wrong part are run; a line inside a loop over written-out names (the three
projections) is also changed in one pass of that loop alone. The changes of one line are compiled together,
once per interpreter, as one function in which that line is a choice among its changed versions.
"""

import ast
import copy
import functools
import inspect
import io
import textwrap
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from microgpt.course import references
from microgpt.course.findings import Guess, Omission

# the order a change is named in when two give the same numbers
KINDS: tuple[str, ...] = ("size", "alternative", "operand", "index", "range", "call", "term", "constant", "compare")
KINDS += ("accumulate", "line", "argument")


@dataclass
class Change:
    """One change of one line of a rule: what it changes (code, or the node, read as code when first asked)."""

    kind: str  # one of KINDS
    role: str  # what the changed line computes, in the verdict's words: "gamma_t = g_i . v_t, dL/dw_t"
    old: ast.AST | str  # the code changed: "vs[t][j]"
    new: ast.AST | str  # what it became: "ks[t][j]"
    line: int  # the line's place in the rule, first line 1
    reach: frozenset[str]  # the parts of the answer the line can change
    size: str = ""  # for a size written as the page's number: the size's name
    gloss: Guess | None = None  # what the change suggests: an index off by one?
    how: Omission | None = None  # what it leaves out, where "after where before belongs" says it badly: "/ n"
    written: bool = False  # a size written as the page's number
    writes: frozenset[str] = frozenset()  # the names the changed line writes
    code: str = ""  # the rule's whole line, as written
    renamed: dict[str, str] = field(default_factory=dict)  # names said otherwise (a loop's, in one pass)
    run: Callable[..., Any] = field(default=lambda *args: None, repr=False, compare=False)
    made: tuple[Any, Any] = field(default=(None, None), repr=False, compare=False)  # (swap, insert): how it is made

    @property
    def before(self) -> str:
        if not isinstance(self.old, str):
            self.old = self.names(self.old)
        return self.old

    @property
    def after(self) -> str:
        if not isinstance(self.new, str):
            self.new = self.names(self.new)
        return self.new

    def names(self, node: ast.AST) -> str:
        """The node as code, with a loop's names said as the pass's own (dqs for d_), for a change in one pass."""
        return _renamed(node, self.renamed) if self.renamed else _text(node)


# ---------------------------------------------------------------- reading the rule


def _comments(source: str) -> dict[int, str]:
    """Each line's trailing comment, by line number."""
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.string.lstrip("#").strip()
    return found


def _names(node: ast.AST, ctx: type = ast.Load) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _root(node: ast.AST) -> tuple[str | None, list[ast.expr]]:
    """The name a chain of subscripts starts from, and its indices outermost first: w[i][j] -> (w, [i, j])."""
    indices: list[ast.expr] = []
    while isinstance(node, ast.Subscript):
        indices.insert(0, node.slice)
        node = node.value
    return (node.id if isinstance(node, ast.Name) else None), indices


def _defs(stmt: ast.stmt) -> set[str]:
    """The names a statement gives a value to (a subscript's or a method's list included)."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.For)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        found = set()
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    found.add(n.id)
        if isinstance(stmt, ast.For):
            return found
        return {name for t in targets for name in [_root(t)[0] or ""] + sorted(_names(t, ast.Store)) if name}
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        f = stmt.value.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return {f.value.id}
    return set()


def _uses(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, ast.For):
        return _names(stmt.iter)
    if isinstance(stmt, ast.If):
        return _names(stmt.test)
    used = _names(stmt)
    if isinstance(stmt, (ast.Assign, ast.AugAssign)):
        for t in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            if isinstance(t, ast.Subscript):  # an entry written depends on the indices that place it
                used |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return used


def _statements(
    body: Sequence[ast.stmt], controls: frozenset[str] = frozenset()
) -> Iterator[tuple[ast.stmt, frozenset]]:
    """Every statement, nested ones too, with the names its enclosing loops and tests read."""
    for stmt in body:
        yield stmt, controls
        if isinstance(stmt, (ast.For, ast.If)):
            # a loop's own names reach the lines that use them, as data; a loop over a written-out tuple of
            # names runs a fixed number of times, so what it reads controls nothing
            fixed = isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Tuple)
            inner = controls if fixed else controls | _uses(stmt)
            yield from _statements(stmt.body, frozenset(inner))
            yield from _statements(stmt.orelse, frozenset(inner))


def reaches(fn: ast.FunctionDef, parts: Sequence[str]) -> dict[str, frozenset[str]]:
    """For each name of the rule, the parts of its answer that name's value can change."""
    returned = fn.body[-1]
    assert isinstance(returned, ast.Return) and returned.value is not None
    outputs = returned.value.elts if isinstance(returned.value, ast.Tuple) else [returned.value]
    aliases: dict[str, set[str]] = {}  # for w_, dw_ in ((wq, dwq), ...): writing into dw_ writes into dwq
    for stmt, _ in _statements(fn.body):
        if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Tuple) and isinstance(stmt.iter, ast.Tuple):
            for row in stmt.iter.elts:
                if isinstance(row, ast.Tuple):
                    for alias, named in zip(stmt.target.elts, row.elts):
                        if isinstance(alias, ast.Name) and isinstance(named, ast.Name):
                            aliases.setdefault(alias.id, set()).add(named.id)
    flows: dict[str, set[str]] = {}  # name -> names computed from it
    for stmt, controls in _statements(fn.body):
        if isinstance(stmt, ast.For) and _range_bound(stmt.iter) is not None:
            continue  # a range loop's index is a place, not a value: the names reused by other loops stay apart
        if isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Tuple):  # wq flows into w_, dwq into dw_
            for row in stmt.iter.elts:
                targets = stmt.target.elts if isinstance(stmt.target, ast.Tuple) else [stmt.target]
                values = row.elts if isinstance(row, ast.Tuple) else [row]
                for target, value in zip(targets, values):
                    for source in _names(value):
                        flows.setdefault(source, set()).update(_names(target, ast.Store))
            continue
        defs = set(_defs(stmt))
        if not isinstance(stmt, ast.For) and not _plain_assignment(stmt):  # a list filled in through an alias
            defs |= {name for d in _defs(stmt) for name in aliases.get(d, ())}
        for source in _uses(stmt) | controls:
            flows.setdefault(source, set()).update(defs)
    found: dict[str, frozenset[str]] = {}
    for name in {*flows, *(n for out in outputs for n in _names(out))}:
        seen, todo = {name}, [name]
        while todo:
            for nxt in flows.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        found[name] = frozenset(part for part, out in zip(parts, outputs) if _names(out) & seen)
    return found


# ---------------------------------------------------------------- the rewrite rules


def shape(value: Any) -> tuple[int, ...]:
    """A nested list's lengths, outermost first, following its first entries."""
    found: list[int] = []
    while isinstance(value, list):
        found.append(len(value))
        value = value[0] if value else None
    return tuple(found)


@dataclass
class _Scope:
    """What a line can see: the rule's lists with their shapes, its numbers, the loop indices around it."""

    lists: dict[str, tuple[int, ...]]  # every list of the rule (on the page's step) and its shape
    arguments: set[str]  # the rule's arguments
    ints: set[str]  # whole numbers in scope: sizes, loop indices, integer arguments
    floats: set[str]  # numbers in scope computed once (r, the average, the normaliser)
    indices: dict[str, ast.expr]  # the range loops around the line and in it, index -> bound
    outer: set[str]  # the indices of the loops around the line (a bound may be one of them, not its own)
    local: set[str]  # lists the rule makes (not its arguments): the only ones it may write into
    writing: set[str]  # what the line writes, and the lists its loop fills: never read in place of something else
    sizes: dict[str, Any]  # the page's sizes, by the name (or expression) the piece gives them


def _constant(node: ast.expr) -> float | None:
    """The number a constant (or a minus sign before one) stands for, or None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    return None


def _num(value: float) -> ast.Constant:
    return ast.Constant(value)


def _bin(left: ast.expr, op: ast.operator, right: ast.expr) -> ast.BinOp:
    return ast.BinOp(left, op, right)


def _name(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _range(*args: ast.expr) -> ast.Call:
    return ast.Call(_name("range"), [a for a in args], [])


def _renamed(node: ast.AST, names: dict[str, str]) -> str:
    """The node's code with some names replaced (a loop's alias by the name it stands for in one pass)."""
    changed = copy.deepcopy(node)
    for n in ast.walk(changed):
        if isinstance(n, ast.Name) and n.id in names:
            n.id = names[n.id]
    return _text(changed)


def _generator(inner: str) -> bool:
    """Is this the inside of a generator expression's parentheses (a " for " outside any bracket)?"""
    depth = 0
    for k, c in enumerate(inner):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(c, 0)
        if depth == 0 and inner.startswith(" for ", k):
            return True
    return False


def _text(node: ast.AST) -> str:
    """The node's code, with sum(x for x in y) written so (Python 3.11's unparse doubles its parentheses)."""
    text = ast.unparse(node)
    k = text.find("((")
    while k > 0:
        if text[k - 1].isalnum() or text[k - 1] == "_":
            depth, end = 0, -1
            for i in range(k + 1, len(text)):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                if depth == 0:
                    end = i
                    break
            if end + 1 < len(text) and text[end + 1] == ")" and _generator(text[k + 2 : end]):
                text = text[: k + 1] + text[k + 2 : end] + text[end + 1 :]
        k = text.find("((", k + 1)
    return text


class _Sites:
    """The one-token changes of one statement, as (node, replacement, kind, gloss, size, how)."""

    def __init__(self, scope: _Scope, written: set[int] | None = None) -> None:
        self.scope = scope
        self.written = written or set()  # the nodes of names the line writes into through another name
        self.found: list[tuple[ast.AST, ast.AST, str, Guess | None, str, Omission | None]] = []

    def add(
        self,
        old: ast.AST,
        new: ast.AST,
        kind: str,
        gloss: Guess | None = None,
        size: str = "",
        how: Omission | None = None,
    ) -> None:
        self.found.append((old, new, kind, gloss, size, how))

    def expression(self, node: ast.expr, bound: bool = False) -> None:
        """Every change inside an expression that is read (bound: a loop's bound, whose one-off ends are a range's)."""
        text = _text(node)
        page = self.scope.sizes.get(text)
        if isinstance(page, int) and not isinstance(page, bool):  # a size: the page's number, or one off
            self.add(node, _num(page), "size", size=text)
            if not bound:
                self.add(node, _bin(node, ast.Sub(), _num(1)), "size", Guess.OFF_BY_ONE, size=text)
                self.add(node, _bin(node, ast.Add(), _num(1)), "size", Guess.OFF_BY_ONE, size=text)
        if isinstance(node, ast.Subscript):
            self.subscript(node, store=False)
        elif isinstance(node, ast.Name):
            self.name(node)
        elif isinstance(node, ast.BinOp):
            self.binop(node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            self.add(node, node.operand, "term", Guess.SIGN)
            self.expression(node.operand)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Compare):
            self.compare(node)
        elif isinstance(node, ast.Constant):
            self.constant(node)
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            self.expression(node.elt)
            for gen in node.generators:
                self.iterable(gen.iter)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expression(child)

    def iterable(self, node: ast.expr) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            self.loop_range(node)
        else:
            self.expression(node)

    def loop_range(self, node: ast.Call) -> None:
        if len(node.args) != 1:
            for arg in node.args:
                self.expression(arg)
            return
        (end,) = node.args
        self.add(node, _range(_bin(end, ast.Sub(), _num(1))), "range", Guess.LOOP_SHORT)
        self.add(node, _range(_bin(end, ast.Add(), _num(1))), "range", Guess.LOOP_LONG)
        self.add(node, _range(_num(1), end), "range", Guess.LOOP_SKIPS_FIRST)
        for other in sorted(self.scope.ints - _names(end) - (set(self.scope.indices) - self.scope.outer)):
            self.add(node, _range(_name(other)), "range")  # another bound: the causal limit, another size
        self.expression(end, bound=True)

    def name(self, node: ast.Name) -> None:
        scope, name = self.scope, node.id
        if name in scope.lists:  # a whole list: another of its shape (one the rule made, if it is written into)
            for other in sorted(scope.local if id(node) in self.written else scope.lists):
                if other != name and scope.lists[other] == scope.lists[name]:
                    self.add(node, _name(other), "operand")
        elif name in scope.floats:
            for other in sorted(scope.floats - {name}):
                self.add(node, _name(other), "operand")
        elif name in scope.ints and name not in scope.indices:
            for other in sorted(scope.ints - {name} - set(scope.indices)):
                self.add(node, _name(other), "operand")

    def subscript(self, node: ast.Subscript, store: bool) -> None:
        scope = self.scope
        root, indices = _root(node)
        if root is None or root not in scope.lists:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr) and not store:
                    self.expression(child)
            return
        full = scope.lists[root]
        ctx: ast.expr_context = ast.Store() if store else ast.Load()

        def access(name: str, idx: Sequence[ast.expr]) -> ast.expr:
            out: ast.expr = _name(name)
            for k, ix in enumerate(idx):
                out = ast.Subscript(out, ix, ctx if k == len(idx) - 1 else ast.Load())
            return out

        allowed = scope.local if store else set(scope.lists) - scope.writing
        for other in sorted(allowed - {root}):  # another list of the same shape, the same indices
            if scope.lists[other] == full:
                self.add(node, access(other, indices), "operand")
        plain = [isinstance(ix, ast.Name) and ix.id in scope.indices for ix in indices]
        if not store and root in scope.arguments and all(plain) and len(indices) == len(full):  # another argument
            own = [ix.id for ix in indices if isinstance(ix, ast.Name)]
            for other in sorted(scope.arguments - {root}):
                rank = len(scope.lists.get(other, ()))
                combos: list[list[str]] = []
                if rank == 1 and len(own) == 2:
                    combos = [[own[0]], [own[1]]]
                elif rank == 2 and len(own) == 1:
                    combos = [[a, own[0]] for a in scope.indices] + [[own[0], a] for a in scope.indices]
                for combo in combos:
                    self.add(node, access(other, [_name(c) for c in combo]), "operand")
        if len(indices) == 2 and all(plain) and _text(indices[0]) != _text(indices[1]):  # the two swapped
            self.add(node, access(root, indices[::-1]), "index", Guess.TRANSPOSE)
        for k, ix in enumerate(indices):  # one index changed
            if not plain[k]:
                if not store:
                    self.expression(ix)
                continue
            assert isinstance(ix, ast.Name)
            bound = scope.indices[ix.id]
            new: list[tuple[ast.expr, Guess | None]] = [(_name(o), None) for o in scope.indices if o != ix.id]
            new += [
                (_num(0), Guess.FIRST_FOR_EACH),
                (ast.UnaryOp(ast.USub(), _num(1)), Guess.LAST_FOR_EACH),
                (_bin(ix, ast.Sub(), _num(1)), Guess.INDEX_OFF_BY_ONE),
                (_bin(ix, ast.Add(), _num(1)), Guess.INDEX_OFF_BY_ONE),
                (_bin(_bin(ix, ast.Add(), _num(1)), ast.Mod(), bound), Guess.INDEX_OFF_BY_ONE),
                (_bin(_bin(bound, ast.Sub(), _num(1)), ast.Sub(), ix), Guess.BACKWARDS),
            ]
            for new_ix, gloss in new:
                self.add(node, access(root, [*indices[:k], new_ix, *indices[k + 1 :]]), "index", gloss)

    def binop(self, node: ast.BinOp) -> None:
        left, right, op = node.left, node.right, node.op
        if isinstance(op, ast.Pow):
            c = _constant(right)
            if c is not None:
                for power in sorted({c + 1, c - 1, -c, 2 * c, c / 2} - {c}):
                    self.add(node, _bin(left, ast.Pow(), _num(power)), "constant")
            self.expression(left)
            return
        whole = _names(node) <= self.scope.ints
        term = None if whole else Guess.TERM_LEFT_OUT
        sign = {ast.Add: "+", ast.Sub: "-"}.get(type(op), "")
        if isinstance(op, (ast.Add, ast.Sub)):
            self.add(node, left, "term", term, how=Omission(f"{sign} {_text(right)}"))
            without = Omission(f"{_text(left)} {sign}" if isinstance(op, ast.Add) else _text(left))
            new = right if isinstance(op, ast.Add) else ast.UnaryOp(ast.USub(), right)
            self.add(node, new, "term", term, how=without)
        if isinstance(op, ast.Mult):
            self.add(node, left, "term", Guess.FACTOR_LEFT_OUT, how=Omission(_text(right), factor=True))
            self.add(node, right, "term", Guess.FACTOR_LEFT_OUT, how=Omission(_text(left), factor=True))
        if isinstance(op, ast.Sub):
            self.add(node, _bin(right, ast.Sub(), left), "term", Guess.SIGN)
            self.add(node, _bin(left, ast.Add(), right), "term", Guess.SIGN)
        if isinstance(op, ast.Add):
            self.add(node, _bin(left, ast.Sub(), right), "term", Guess.SIGN)
        if isinstance(op, ast.Mult):
            self.add(node, _bin(left, ast.Div(), right), "term")
        if isinstance(op, ast.Div):
            self.add(node, left, "term", Guess.DIVISION_LEFT_OUT, how=Omission(f"/ {_text(right)}"))
            self.add(node, _bin(left, ast.Mult(), right), "term")
            self.add(node, _bin(left, ast.FloorDiv(), right), "term", Guess.FLOOR_DIVISION)
        if isinstance(op, ast.FloorDiv):
            self.add(node, _bin(left, ast.Div(), right), "term")
        if whole and isinstance(op, (ast.Add, ast.Sub)):  # a whole number for another (i + 1 -> T)
            for other in sorted(self.scope.ints - _names(node) - (set(self.scope.indices) - self.scope.outer)):
                self.add(node, _name(other), "operand")
        self.expression(left)
        self.expression(right)

    def call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ("sqrt", "exp") and len(node.args) == 1:
            self.add(node, node.args[0], "call", Guess.SQRT_LEFT_OUT if f.attr == "sqrt" else Guess.EXP_LEFT_OUT)
        if isinstance(f, ast.Name) and f.id == "sum" and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            self.add(node, ast.Call(_name("len"), [node.args[0]], []), "call")  # a list's length for its sum
        for arg in node.args:
            self.expression(arg)

    def compare(self, node: ast.Compare) -> None:
        swaps = {ast.Gt: (ast.GtE, ast.Lt, ast.LtE), ast.Eq: (ast.NotEq,), ast.Lt: (ast.LtE, ast.Gt)}
        if len(node.ops) == 1:
            (op,), (right,) = node.ops, node.comparators
            for new_op in swaps.get(type(op), ()):
                self.add(node, ast.Compare(node.left, [new_op()], [right]), "compare")
            for k, side in ((1, right), (0, node.left)):  # the bound side first: j == target - 1
                if isinstance(side, ast.Name) and side.id in self.scope.ints:
                    for step in (ast.Sub(), ast.Add()):
                        moved = _bin(side, step, _num(1))
                        pair = (moved, right) if k == 0 else (node.left, moved)
                        self.add(node, ast.Compare(pair[0], [type(op)()], [pair[1]]), "index", Guess.INDEX_OFF_BY_ONE)
        self.expression(node.left)
        for c in node.comparators:
            self.expression(c)

    def constant(self, node: ast.Constant) -> None:
        c = node.value
        if not isinstance(c, (int, float)) or isinstance(c, bool):
            return
        for new in (0.0, 1.0, -c, 2 * c, c / 2):
            if new != c:
                self.add(node, _num(int(new) if isinstance(c, int) and float(new).is_integer() else new), "constant")


def _exchanged(stmt: ast.stmt, scope: _Scope) -> list[tuple[ast.expr, ast.expr]]:
    """For each two loop indices read in one expression of a line, each in lists of its own (qs[i][j] * ks[t][j]):
    the smallest such expression with the two exchanged (qs[t][j] * ks[i][j])."""
    value = getattr(stmt, "value", None)
    if not isinstance(value, ast.expr):
        return []

    def indexed(node: ast.AST) -> set[str]:  # the indices the subscripts in node read, as plain names
        return {
            n.slice.id
            for n in ast.walk(node)
            if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id in scope.indices
        }

    found = []
    names = sorted(indexed(value))
    for k, a in enumerate(names):
        for b in names[k + 1 :]:
            holding = [n for n in ast.walk(value) if isinstance(n, ast.expr) and {a, b} <= indexed(n)]
            smallest = min(holding, key=lambda n: sum(1 for _ in ast.walk(n)))
            swapped = copy.deepcopy(smallest)
            for n in ast.walk(swapped):
                if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id in (a, b):
                    n.slice = ast.Name(b if n.slice.id == a else a, ast.Load())
            if _text(swapped) != _text(smallest):
                found.append((smallest, swapped))
    return found


def _plain_assignment(stmt: ast.stmt) -> bool:
    """name = value: a name bound, not a list filled in."""
    return isinstance(stmt, ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple)) for t in stmt.targets)


def _range_bound(it: ast.expr) -> ast.expr | None:
    """n for range(n), else None."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1:
        return it.args[0]
    return None


def _allocation(stmt: ast.stmt) -> bool:
    """A line that only makes a list of zeros, or an empty list: nothing to get wrong but a shape."""
    if not isinstance(stmt, ast.Assign):
        return False
    value = stmt.value
    while isinstance(value, (ast.ListComp, ast.BinOp)):
        value = value.elt if isinstance(value, ast.ListComp) else value.left
    return isinstance(value, ast.List) and all(isinstance(e, ast.Constant) and e.value == 0.0 for e in value.elts)


def _final_locals(module: ast.Module, globals_: dict[str, Any], args: tuple) -> dict[str, Any]:
    """The rule's local names as it returns, on these arguments: what each name holds, and its shape."""
    changed = copy.deepcopy(module)
    fn = changed.body[0]
    assert isinstance(fn, ast.FunctionDef) and isinstance(fn.body[-1], ast.Return)
    fn.body[-1].value = ast.Call(_name("locals"), [], [])
    ast.fix_missing_locations(changed)
    namespace: dict[str, Any] = {}
    exec(compile(changed, "<rule>", "exec"), globals_, namespace)  # noqa: S102 (the package's own rule)
    return namespace[fn.name](*copy.deepcopy(args))


class Rule:
    """A piece's reference rule (microgpt.course.references), and every one-line change of it.

    page: the arguments of the piece's first case (the page's step), on which the rule is run once to learn
    what each of its names holds (a list and its shape, a whole number, a float): a list is only replaced by
    another of the same shape, a number by another of its kind.
    """

    def __init__(self, name: str, parts: Sequence[str], sizes: dict[str, Any], page: tuple) -> None:
        function = getattr(references, name)
        source = textwrap.dedent(inspect.getsource(function))
        self.name, self.parts, self.sizes = name, tuple(parts), sizes
        self.module = ast.parse(source)
        fn = self.module.body[0]
        assert isinstance(fn, ast.FunctionDef)
        self.fn = fn
        self.comments = _comments(source)
        self.reach = reaches(fn, parts)
        self.globals = vars(references)
        self.groups: dict[int, _Group] = {}  # the changes of each line, compiled together
        self.values = _final_locals(self.module, self.globals, page)
        self.first = {a.arg: 0 for a in fn.args.args}  # the line where each name first gets a value
        self.enclosing: dict[int, dict[str, ast.expr]] = {}  # each statement's range loops: index -> bound
        self.loop_names: set[str] = set()
        for stmt, _ in _statements(fn.body):
            for name in _defs(stmt):
                self.first.setdefault(name, stmt.lineno)
        for node in ast.walk(fn):
            if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
                self.loop_names.add(node.target.id)
        self._enclose(fn.body, {})
        returned = fn.body[-1]
        assert isinstance(returned, ast.Return) and returned.value is not None
        self.outputs = [_text(e) for e in getattr(returned.value, "elts", [returned.value])]
        self.passes: dict[int, list[tuple[str, str, list[str], list[str]]]] = {}  # loops over written-out names
        for node in ast.walk(fn):
            if isinstance(node, ast.For) and isinstance(node.target, ast.Tuple) and isinstance(node.iter, ast.Tuple):
                targets = [_text(t) for t in node.target.elts]
                rows = [[_text(n) for n in row.elts] for row in node.iter.elts if isinstance(row, ast.Tuple)]
                for inner, _ in _statements(node.body):
                    self.passes[id(inner)] = [(targets[0], row[0], row, targets) for row in rows]
        self.made = {  # the lists the rule makes itself: the only ones a change may write into
            stmt.targets[0].id
            for stmt, _ in _statements(fn.body)
            if isinstance(stmt, ast.Assign)
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, (ast.List, ast.ListComp, ast.BinOp))
        }
        self.filled: dict[int, set[str]] = {}  # per statement: the lists filled entry by entry in its outermost loop
        for top in fn.body:
            filling = {
                name
                for stmt, _ in _statements([top])
                for name in _defs(stmt)
                if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr)) and not _plain_assignment(stmt)
            }
            for stmt, _ in _statements([top]):
                self.filled[id(stmt)] = filling
        self.parents = {  # each node's place in the tree, to put a changed node in it while compiling
            id(child): (parent, name, k)
            for parent in ast.walk(fn)
            for name, value in ast.iter_fields(parent)
            for k, child in (enumerate(value) if isinstance(value, list) else [(None, value)])
            if isinstance(child, ast.AST)
        }

    @functools.cached_property
    def defined(self) -> dict[str, str]:
        """The rule's own numbers, each given its value by one line (V = len(p), n = i + 1), with that line's code:
        a change said in a reader's names is said with these written out."""
        found: dict[str, list[str]] = {}
        for stmt, _ in _statements(self.fn.body):
            for name in _defs(stmt):
                found.setdefault(name, [])
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                found[stmt.targets[0].id].append(_text(stmt.value))
        numbers = {name for name, value in self.values.items() if isinstance(value, (int, float))}
        return {name: codes[0] for name, codes in found.items() if len(codes) == 1 and name in numbers}

    @property
    def arguments(self) -> tuple[str, ...]:
        return tuple(a.arg for a in self.fn.args.args)

    def _enclose(self, body: Sequence[ast.stmt], loops: dict[str, ast.expr]) -> None:
        for stmt in body:
            self.enclosing[id(stmt)] = loops
            if isinstance(stmt, ast.For):
                bound = _range_bound(stmt.iter)
                inner = {**loops, stmt.target.id: bound} if isinstance(stmt.target, ast.Name) and bound else loops
                self._enclose(stmt.body, inner)
            elif isinstance(stmt, ast.If):
                self._enclose(stmt.body, loops)
                self._enclose(stmt.orelse, loops)

    def compiled(self) -> Callable[..., Any]:
        namespace: dict[str, Any] = {}
        exec(compile(self.module, f"<{self.name}, one line changed>", "exec"), self.globals, namespace)  # noqa: S102
        return namespace[self.name]

    def _said(self, stmt: ast.stmt) -> str:
        """The statement's comment: on its first line, or on a later line of it (a loop's: on its header only)."""
        last = stmt.lineno if isinstance(stmt, (ast.For, ast.If)) else stmt.end_lineno or stmt.lineno
        for line in range(stmt.lineno, last + 1):
            if line in self.comments:
                return self.comments[line]
        return ""

    def _role(self, stmt: ast.stmt) -> str:
        said = self._said(stmt)
        if said:
            return said
        defs = sorted(_defs(stmt))
        return f"the line for {', '.join(defs)}" if defs else f"the line {_text(stmt).splitlines()[0]}"

    def only_for(self, parts: frozenset[str]) -> list[str]:
        """What the lines compute whose values reach these parts of the answer (some of them) and no other, in the
        rule's order."""
        found = []
        for stmt, _ in _statements(self.fn.body):
            role = self._said(stmt)
            reach = self._reach_of(stmt)
            if role and not isinstance(stmt, (ast.For, ast.If)) and reach and reach <= parts and role not in found:
                found.append(role)
        return found

    @functools.cached_property
    def substitutions(self) -> list["Substitution"]:
        """For each number the rule computes once (r, the average, the scale): the rule with another value put in its
        place, right after the line that computes it."""
        found = []
        for k, stmt in enumerate(self.fn.body):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            name = stmt.targets[0].id
            if not isinstance(self.values.get(name), float):
                continue
            changed = copy.deepcopy(self.module)
            fn = changed.body[0]
            assert isinstance(fn, ast.FunctionDef)
            given = ast.parse(f"{name} = _given({name})").body[0]
            fn.body.insert(k + 1, ast.copy_location(given, fn.body[k]))
            ast.fix_missing_locations(changed)
            found.append(Substitution(name, self._role(stmt), self.reach.get(name, frozenset()), changed, self))
        return found

    def _reach_of(self, stmt: ast.stmt, row: dict[str, str] | None = None) -> frozenset[str]:
        """The parts a line can change (a loop: the lines in it too). row: in one pass of a loop over written-out
        names only, each of the loop's names -> the name it stands for in that pass."""
        lines = [stmt, *(s for s, _ in _statements(stmt.body))] if isinstance(stmt, (ast.For, ast.If)) else [stmt]
        names: set[str] = set()
        for line in lines:
            if not (isinstance(line, ast.For) and _range_bound(line.iter) is not None):  # an index is a place
                names |= _defs(line)
        if row is None:
            return frozenset(part for n in names for part in self.reach.get(n, frozenset()))
        direct = {row[n] for n in names if n in row}
        return frozenset(p for p, out in zip(self.parts, self.outputs) if out in direct) | frozenset(
            part for n in names - set(row) for part in self.reach.get(n, frozenset())
        )

    def _scope(self, stmt: ast.stmt) -> _Scope:
        first, values = self.first, self.values
        arguments = {a.arg for a in self.fn.args.args}
        indices = self._indices_in_scope(stmt)
        seen = {n for n, line in first.items() if line < stmt.lineno or (line == stmt.lineno and n in indices)}
        lists = {n: shape(values[n]) for n in seen if isinstance(values.get(n), list) and values[n]}
        whole = {n for n in seen if isinstance(values.get(n), int) and not isinstance(values.get(n), bool)}
        ints = {n for n in whole if n not in self.loop_names} | set(indices)
        floats = {n for n in seen if isinstance(values.get(n), float)}
        local = {n for n in lists if n in self.made}
        outer = set(self._indices_in_scope(stmt, own=False))
        writing = self.filled[id(stmt)] | (set() if isinstance(stmt, ast.AugAssign) else _defs(stmt))
        return _Scope(lists, arguments & set(lists), ints, floats, indices, outer, local, writing, self.sizes)

    def _indices_in_scope(self, stmt: ast.stmt, own: bool = True) -> dict[str, ast.expr]:
        """The range loops around a statement (and its own, unless own is False): index -> bound."""
        found = dict(self.enclosing[id(stmt)])
        if own:
            loops = [(stmt.target, stmt.iter)] if isinstance(stmt, ast.For) else []
            for part in [stmt.iter] if isinstance(stmt, ast.For) else [stmt]:
                loops += [(g.target, g.iter) for g in ast.walk(part) if isinstance(g, ast.comprehension)]
            for target, it in loops:
                bound = _range_bound(it)
                if isinstance(target, ast.Name) and bound is not None:
                    found[target.id] = bound
        return found

    @functools.cached_property
    def changes(self) -> list[Change]:
        """Every change, the arguments first, then line by line in the rule's order; each once."""
        found: list[Change] = []
        arguments = [a.arg for a in self.fn.args.args]
        for a in arguments:  # an argument taken for another, softmax applied again, a size argument as 1
            value = self.values.get(a)
            news: list[tuple[str, Guess | None]] = []
            if isinstance(value, int) and not isinstance(value, bool):
                news.append(("1", None))
            elif isinstance(value, list) and value:
                news += [(b, None) for b in arguments if b != a and shape(self.values.get(b)) == shape(value)]
                if len(shape(value)) == 1 and isinstance(value[0], float):
                    news.append((f"softmax({a})", Guess.SOFTMAX_AGAIN))
            for new, gloss in news:
                stmt = ast.parse(f"{a} = {new}").body[0]
                reach = self.reach.get(a, frozenset())
                change = Change("argument", f"the argument {a}", a, new, 0, reach, gloss=gloss, writes=frozenset({a}))
                found.append(self._made(change, None, insert=stmt))
        for stmt, _ in _statements(self.fn.body):
            scope = self._scope(stmt)
            if isinstance(stmt, (ast.Return, ast.ImportFrom, ast.Import)) or _allocation(stmt):
                continue
            found += self._changes_of(stmt, scope)
        order = {kind: k for k, kind in enumerate(KINDS)}
        return sorted(found, key=lambda c: (order[c.kind], c.line))

    def _changes_of(self, stmt: ast.stmt, scope: _Scope) -> list[Change]:
        sites = _Sites(scope, self._written_through(stmt))
        target_name = ""
        if isinstance(stmt, ast.For):
            sites.iterable(stmt.iter)
        elif isinstance(stmt, ast.If):
            sites.expression(stmt.test)
        elif isinstance(stmt, (ast.Assign, ast.AugAssign)):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
            target_name = _text(target)
            page = self.sizes.get(target_name)
            if isinstance(stmt, ast.Assign) and isinstance(page, int) and not isinstance(page, bool):
                sites.add(stmt.value, _num(page), "size", size=target_name)  # a size: the page's number, or one off
                sites.add(stmt.value, _bin(stmt.value, ast.Sub(), _num(1)), "size", Guess.OFF_BY_ONE, size=target_name)
                sites.add(stmt.value, _bin(stmt.value, ast.Add(), _num(1)), "size", Guess.OFF_BY_ONE, size=target_name)
            sites.expression(stmt.value)
            if isinstance(target, ast.Subscript):
                sites.subscript(target, store=True)
        elif isinstance(stmt, ast.Expr):
            sites.expression(stmt.value)
        role, reach = self._role(stmt), self._reach_of(stmt)
        rows: dict[int, frozenset[str]] = {}  # a change inside one row of a loop's written-out names: that pass's
        if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Tuple) and isinstance(stmt.iter, ast.Tuple):
            aliases = [_text(t) for t in stmt.target.elts]
            for written in stmt.iter.elts:
                row_reach = self._reach_of(stmt, dict(zip(aliases, [_text(n) for n in getattr(written, "elts", [])])))
                rows.update({id(node): row_reach for node in ast.walk(written)})
        found = []
        mentioned = _names(stmt) | _names(stmt, ast.Store)
        passes = {  # each pass of a loop over written-out names: what it can change
            row: self._reach_of(stmt, dict(zip(aliases, names)))
            for _, row, names, aliases in self.passes.get(id(stmt), ())
        }
        target_nodes = {
            id(n) for t in getattr(stmt, "targets", [getattr(stmt, "target", None)]) if t for n in ast.walk(t)
        }
        code = _text(stmt).splitlines()[0]
        inner = [s for s, _ in _statements([stmt])] if isinstance(stmt, (ast.For, ast.If)) else [stmt]
        writes = frozenset(n for s in inner if not isinstance(s, ast.For) for n in _defs(s))  # a loop: its lines
        for old, new, kind, gloss, size, how in sites.found:
            number = kind == "size" and gloss is None  # a size's only change without a guess: the page's number
            change = Change(
                kind,
                role,
                old,
                new,
                stmt.lineno,
                rows.get(id(old), reach),
                size=size,
                gloss=gloss,
                how=how,
                written=number,
                writes=writes,
                code=code,
            )
            found.append(self._made(change, stmt, swap=(old, new)))
            if id(old) in target_nodes or not isinstance(old, ast.expr) or not isinstance(new, ast.expr):
                continue
            for first, row, names, aliases in self.passes.get(id(stmt), ()):  # in one pass of the loop only
                guarded = ast.IfExp(ast.Compare(_name(first), [ast.Is()], [_name(row)]), new, old)
                named = dict(zip(aliases, names))  # said with the pass's own names: dqs for d_
                used = [named[n] for n in aliases if n in mentioned]
                one = Change(
                    kind,
                    f"{role}, for {' and '.join(used)}",
                    old,
                    new,
                    stmt.lineno,
                    passes[row],
                    size=size,
                    gloss=gloss,
                    how=how,
                    written=number,
                    writes=frozenset(named.get(n, n) for n in writes),
                    code=code,
                    renamed=named,
                )
                found.append(self._made(one, stmt, swap=(old, guarded)))
        for old, new in _exchanged(stmt, scope):  # two indices exchanged: q_t . k_i for q_i . k_t
            change = Change(
                "index", role, old, new, stmt.lineno, reach, gloss=Guess.EXCHANGED, writes=writes, code=code
            )
            found.append(self._made(change, stmt, swap=(old, new)))
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
            for new_stmt, gloss in (
                (
                    ast.Assign([stmt.target], stmt.value),
                    Guess.SUM_REPLACED,
                ),
                (ast.AugAssign(stmt.target, ast.Sub(), stmt.value), Guess.SIGN),
            ):
                ast.fix_missing_locations(ast.copy_location(new_stmt, stmt))
                change = Change(
                    "accumulate", role, stmt, new_stmt, stmt.lineno, reach, gloss=gloss, writes=writes, code=code
                )
                found.append(self._made(change, stmt, swap=(stmt, new_stmt)))
        for alternative in references.ALTERNATIVES.get((self.name, target_name), ()):
            other = ast.parse(alternative).body[0]
            assert isinstance(stmt, ast.Assign) and isinstance(other, ast.Assign)
            change = Change("alternative", role, stmt.value, other.value, stmt.lineno, reach, writes=writes, code=code)
            found.append(self._made(change, stmt, swap=(stmt, other)))
        if not isinstance(stmt, (ast.For, ast.If)) and self._in_loop_with_others(stmt):
            change = Change(
                "line", role, stmt, "", stmt.lineno, reach, gloss=Guess.LINE_LEFT_OUT, writes=writes, code=code
            )
            found.append(self._made(change, stmt, swap=(stmt, ast.Pass())))
        return found

    def _written_through(self, stmt: ast.stmt) -> set[int]:
        """In a loop over written-out names (for w_, dw_ in ((wq, dwq), ...)), the names written into through
        the loop's own (dwq, through dw_): replaced only by lists the rule makes, never by an argument."""
        if not (isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Tuple) and isinstance(stmt.iter, ast.Tuple)):
            return set()
        filled = {n for inner, _ in _statements(stmt.body) if not _plain_assignment(inner) for n in _defs(inner)}
        slots = [k for k, t in enumerate(stmt.target.elts) if isinstance(t, ast.Name) and t.id in filled]
        return {id(row.elts[k]) for row in stmt.iter.elts if isinstance(row, ast.Tuple) for k in slots}

    def _in_loop_with_others(self, stmt: ast.stmt) -> bool:
        for node in ast.walk(self.fn):
            if isinstance(node, ast.For) and any(s is stmt for s in node.body):
                return len(node.body) > 1
        return False

    def _made(
        self,
        change: Change,
        stmt: ast.stmt | None,
        swap: tuple[ast.AST, ast.AST] | None = None,
        insert: ast.stmt | None = None,
    ) -> Change:
        """The change with its run(). The changes of one line are compiled together, once, when the first of them
        runs: one function in which that line is a choice between its changed versions, made by a number."""
        key = id(stmt) if stmt is not None else 0
        group = self.groups.setdefault(key, _Group(stmt))
        number = len(group.made)
        group.made.append((swap, insert))

        def run(*args: Any) -> Any:
            function, namespace = group.compiled(self)
            namespace["_change"] = number
            return function(*args)

        change.run, change.made = run, (swap, insert)
        return change


class Substitution:
    """The rule with one number it computes replaced by a value given to run()."""

    def __init__(self, name: str, role: str, reach: frozenset[str], module: ast.Module, rule: "Rule") -> None:
        self.name, self.role, self.reach = name, role, reach
        self.namespace: dict[str, Any] = dict(rule.globals)
        exec(compile(module, f"<{rule.name}, {name} given>", "exec"), self.namespace)  # noqa: S102
        self.function = self.namespace[rule.name]

    def run(self, value: float | None, *args: Any) -> tuple[Any, float]:
        """The rule's answer with this number set to value (None: left as computed), and the number it computed."""
        seen: list[float] = []

        def given(computed: float) -> float:
            seen.append(computed)
            return computed if value is None else value

        self.namespace["_given"] = given
        return self.function(*args), seen[0]


class _Group:
    """The changes of one line of a rule (or, for stmt None, the arguments'): compiled into one function."""

    def __init__(self, stmt: ast.stmt | None) -> None:
        self.stmt = stmt
        self.made: list[tuple[tuple[ast.AST, ast.AST] | None, ast.stmt | None]] = []
        self.function: tuple[Callable[..., Any], dict[str, Any]] | None = None

    def compiled(self, rule: "Rule") -> tuple[Callable[..., Any], dict[str, Any]]:
        if self.function is None:
            versions: list[ast.stmt] = []
            for swap, insert in self.made:
                if insert is not None:
                    versions.append(insert)
                    continue
                assert self.stmt is not None and swap is not None
                if not hasattr(swap[1], "lineno"):  # a node made for the change: where it stands
                    ast.fix_missing_locations(ast.copy_location(swap[1], swap[0]))
                version = _swapped(self.stmt, swap, rule.parents)
                assert isinstance(version, ast.stmt)
                versions.append(version)
            original: list[ast.stmt] = [ast.Pass()] if self.stmt is None else [self.stmt]
            choice = _choice(versions, 0, len(versions), original)
            with _Changed(rule.fn, None, None, rule.parents, replace=(self.stmt, choice)):
                namespace: dict[str, Any] = dict(rule.globals)
                exec(compile(rule.module, f"<{rule.name}, one line changed>", "exec"), namespace)  # noqa: S102
            self.function = namespace[rule.name], namespace
        return self.function


def _swapped(
    stmt: ast.stmt, swap: tuple[ast.AST, ast.AST], parents: dict[int, tuple[ast.AST, str, int | None]]
) -> ast.AST:
    """The statement with one node in it replaced: the nodes from the statement down to it copied (shallowly), the
    rest shared with the rule's own tree, which is left as it was."""
    old, new = swap
    if old is stmt:
        return new
    path = []  # (parent, field, index) from the changed node up to the statement
    node: ast.AST = old
    while node is not stmt:
        parent, field, k = parents[id(node)]
        path.append((parent, field, k))
        node = parent
    replacement = new
    for parent, field, k in path:  # rebuild upwards: each parent copied, with the copy of its child in place
        copied = copy.copy(parent)
        if k is None:
            setattr(copied, field, replacement)
        else:
            items = list(getattr(parent, field))
            items[k] = replacement
            setattr(copied, field, items)
        replacement = copied
    return replacement


def _choice(versions: list[ast.stmt], start: int, stop: int, original: list[ast.stmt]) -> ast.stmt:
    """if _change == k: version k, as a balanced tree of ifs on _change over versions[start:stop]."""
    if stop - start == 1:
        test = ast.Compare(_name("_change"), [ast.Eq()], [_num(start)])
        return ast.If(test, [versions[start]], original)
    middle = (start + stop) // 2
    test = ast.Compare(_name("_change"), [ast.Lt()], [_num(middle)])
    return ast.If(test, [_choice(versions, start, middle, original)], [_choice(versions, middle, stop, original)])


class _Changed:
    """Make one change in the rule's tree (swap a node, insert a first line, or put a choice in a line's place)
    while compiling it, and undo it after."""

    def __init__(
        self,
        fn: ast.FunctionDef,
        swap: tuple[ast.AST, ast.AST] | None,
        insert: ast.stmt | None,
        parents: dict[int, tuple[ast.AST, str, int | None]],
        replace: tuple[ast.stmt | None, ast.stmt] | None = None,
    ) -> None:
        self.fn, self.swap, self.insert, self.parents = fn, swap, insert, parents
        if replace is not None:
            stmt, choice = replace
            if stmt is None:
                self.insert = choice
            else:
                self.swap = (stmt, choice)
        self.undo: Callable[[], None] = lambda: None

    def __enter__(self) -> None:
        if self.insert is not None:
            stmt = ast.fix_missing_locations(ast.copy_location(self.insert, self.fn.body[0]))
            start = 1 if isinstance(self.fn.body[0], (ast.ImportFrom, ast.Import)) else 0
            self.fn.body.insert(start, stmt)
            self.undo = lambda: self.fn.body.remove(stmt)
            return
        assert self.swap is not None
        old, new = self.swap
        if not hasattr(new, "lineno"):
            ast.fix_missing_locations(ast.copy_location(new, old))
        parent, name, k = self.parents[id(old)]
        if k is None:
            setattr(parent, name, new)
            self.undo = lambda: setattr(parent, name, old)
        else:
            getattr(parent, name)[k] = new
            self.undo = lambda: getattr(parent, name).__setitem__(k, old)

    def __exit__(self, *exc: object) -> None:
        self.undo()


_rules: dict[str, Rule] = {}


def rule(name: str, parts: Sequence[str], sizes: dict[str, Any], page: tuple) -> Rule:
    """A piece's rule, read once per interpreter (sizes and page: the page's step's sizes and arguments)."""
    if name not in _rules:
        _rules[name] = Rule(name, parts, sizes, page)
    return _rules[name]
