"""A mypy plugin: sum() of Values is a Value, so the taught files need no typing scaffolding.

typeshed types sum(values) as `Value | Literal[0]`, because sum([]) is the int 0. Every sum of
Values in microgpt adds a non-empty list (a model's sizes are at least 1), so at run time the
result is a Value: 0 + the first Value goes through Value.__radd__. This plugin tells mypy so,
for sum() called without a start value on Values (microgpt.engine.Value) and nothing else. Without
it, engine.py would carry typing-only overloads of sum() and model.py and train.py would import them.

pyproject.toml's [tool.mypy] plugins names this file; the hook is mypy's documented
get_function_hook (https://mypy.readthedocs.io/en/stable/extending_mypy.html).
"""

from collections.abc import Callable

from mypy.plugin import FunctionContext, Plugin
from mypy.types import Instance, LiteralType, ProperType, Type, UnionType, get_proper_type

VALUE = "microgpt.engine.Value"


def is_value(t: ProperType) -> bool:
    return isinstance(t, Instance) and t.type.fullname == VALUE


def is_literal_zero(t: ProperType) -> bool:
    return isinstance(t, LiteralType) and t.value == 0


def sum_of_values(ctx: FunctionContext) -> Type:
    """`Value | Literal[0]` becomes `Value`; any other sum keeps the type typeshed gives it."""
    returned = get_proper_type(ctx.default_return_type)
    if not isinstance(returned, UnionType) or len(ctx.args) > 1 and ctx.args[1]:  # a start value: left alone
        return ctx.default_return_type
    items = [get_proper_type(item) for item in returned.items]
    values = [item for item in items if is_value(item)]
    if values and all(is_value(item) or is_literal_zero(item) for item in items):
        return values[0]
    return ctx.default_return_type


class SumOfValues(Plugin):
    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return sum_of_values if fullname == "builtins.sum" else None


def plugin(version: str) -> type[Plugin]:
    return SumOfValues
