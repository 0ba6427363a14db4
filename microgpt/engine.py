"""Scalar reverse-mode autograd: each Value remembers how it was made; backward() replays that in reverse."""

import math
from typing import Any


class Value:
    """One number in a computation graph, and the gradient of the graph's root with respect to it."""

    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data: float, _children=(), _local_grads=()):
        if not isinstance(data, (int, float)):
            kind = type(data).__name__
            raise TypeError(f"Value holds an int or a float, not {kind}")
        self.data = data  # the number the forward pass computed
        self.grad: float = 0  # d(root)/d(self), set by backward()
        self._children = _children  # the Values this one was made from
        self._local_grads = _local_grads  # d(self)/d(child), one per child

    def __add__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other: "Value | float") -> "Value":
        other = other if isinstance(other, Value) else Value(other)
        # each input's local gradient is the other input
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, k: float) -> "Value":
        if not isinstance(k, (int, float)):  # Value ** Value is not supported
            raise TypeError(f"k must be a number, not {type(k).__name__}")
        return Value(self.data**k, (self,), (k * self.data ** (k - 1),))

    def log(self) -> "Value":
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def exp(self) -> "Value":
        e = math.exp(self.data)
        return Value(e, (self,), (e,))

    def relu(self) -> "Value":
        return Value(max(0, self.data), (self,), (float(self.data > 0),))

    def tanh(self) -> "Value":
        t = math.tanh(self.data)
        return Value(t, (self,), (1 - t * t,))

    # everything else is built from the ops above, so it needs no rule of its own
    def __neg__(self) -> "Value":
        return self * -1

    def __sub__(self, other: "Value | float") -> "Value":
        return self + (-other)

    def __truediv__(self, other: "Value | float") -> "Value":
        return self * other**-1

    def __radd__(self, other: float) -> "Value":
        return self + other

    def __rsub__(self, other: float) -> "Value":
        return other + (-self)

    def __rmul__(self, other: float) -> "Value":
        return self * other

    def __rtruediv__(self, other: float) -> "Value":
        return other * self**-1

    def backward(self) -> None:
        """Fill in .grad of every Value this one was computed from."""
        topo = topological_order(self)  # every node after all of its children
        self.grad = 1
        for v in reversed(topo):
            for child, local_grad in zip(v._children, v._local_grads):
                child.grad += local_grad * v.grad

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"


def topological_order(root: "Value") -> "list[Value]":
    """Every node of root's graph, each one listed after all of its children."""
    # post-order depth-first search, with a stack instead of recursion
    # (so any depth works); a None means "the node below is complete"
    stack: list[Any]  # Values, and the None markers between them
    topo, visited, stack = [], set(), [root]
    while stack:
        v = stack.pop()
        if v is None:
            topo.append(stack.pop())
        elif v not in visited:
            visited.add(v)
            stack += (v, None, *v._children)
    return topo
