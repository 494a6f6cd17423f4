"""Calico selector expressions (`app == 'web' && has(tier)`), parsed and evaluated in three values.

Calico selects endpoints and namespaces with an expression language, not label selectors. Checks know
a namespace's labels but not every pod's, so evaluation is three-valued: True (every pod matches),
False (none does) or None (it depends on pod labels the evidence does not hold). Only the keys the
caller declares known are decided; any other key makes its term None (Kleene logic combines them).

Grammar (docs.tigera.io "Selectors"): `all()`, `global()`, `has(k)`, `k == 'v'`, `k != 'v'`,
`k in {'a', 'b'}`, `k not in {...}`, `k contains 'x'`, `k starts with 'x'`, `k ends with 'x'`,
`!`, `&&`, `||`, parentheses. An empty expression selects everything, as `all()` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

Tri = bool | None
_TOKEN = re.compile(
    r"\s*(?:(?P<op>&&|\|\||==|!=|!|\(|\)|\{|\}|,)"
    r"|(?P<str>'[^']*'|\"[^\"]*\")"
    r"|(?P<word>[A-Za-z0-9_./\-]+))"
)


class SelectorError(ValueError):
    """The expression is not a Calico selector; the message says where."""


@dataclass(frozen=True)
class Term:
    """One leaf: an operator on one label key (`key` is "" for all()/global())."""

    op: str  # all, global, has, ==, !=, in, not in, contains, starts with, ends with
    key: str = ""
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Node:
    op: str  # and, or, not
    children: tuple[Expr, ...]


Expr = Term | Node


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise SelectorError(f"unexpected {text[pos : pos + 10]!r} at column {pos + 1}")
        out.append(m.group(m.lastgroup or "word"))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, ahead: int = 0) -> str | None:
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise SelectorError(f"expected {expected or 'more'} in {self.text!r}")
        self.i += 1
        return tok

    def parse(self) -> Expr:
        if not self.toks:
            return Term("all")
        expr = self.or_()
        if self.peek() is not None:
            raise SelectorError(f"unexpected {self.peek()!r} in {self.text!r}")
        return expr

    def or_(self) -> Expr:
        parts = [self.and_()]
        while self.peek() == "||":
            self.take()
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else Node("or", tuple(parts))

    def and_(self) -> Expr:
        parts = [self.unary()]
        while self.peek() == "&&":
            self.take()
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else Node("and", tuple(parts))

    def unary(self) -> Expr:
        if self.peek() == "!":
            self.take()
            return Node("not", (self.unary(),))
        if self.peek() == "(":
            self.take()
            inner = self.or_()
            self.take(")")
            return inner
        return self.term()

    def term(self) -> Expr:
        word = self.take()
        if word in ("all", "global") and self.peek() == "(":
            self.take("(")
            self.take(")")
            return Term(word)
        if word == "has" and self.peek() == "(":
            self.take("(")
            key = self.take()
            self.take(")")
            return Term("has", key)
        op = self.take()
        if op in ("==", "!=", "contains"):
            return Term(op, word, (self.string(),))
        if op in ("starts", "ends"):
            self.take("with")
            return Term(f"{op} with", word, (self.string(),))
        if op == "not":
            self.take("in")
            return Term("not in", word, self.set_())
        if op == "in":
            return Term("in", word, self.set_())
        raise SelectorError(f"unknown operator {op!r} after {word!r} in {self.text!r}")

    def string(self) -> str:
        tok = self.take()
        if len(tok) < 2 or tok[0] not in "'\"" or tok[-1] != tok[0]:
            raise SelectorError(f"expected a quoted value, got {tok!r} in {self.text!r}")
        return tok[1:-1]

    def set_(self) -> tuple[str, ...]:
        self.take("{")
        values: list[str] = []
        while self.peek() != "}":
            values.append(self.string())
            if self.peek() == ",":
                self.take()
        self.take("}")
        return tuple(values)


def parse(text: str | None) -> Expr:
    """The expression tree; None or "" is `all()`. Raises SelectorError on a malformed expression."""
    return _Parser(text or "").parse()


def _term(term: Term, labels: Mapping[str, str], known: Callable[[str], bool], is_global: bool) -> Tri:
    if term.op == "all":
        return True
    if term.op == "global":
        return is_global
    if not known(term.key):
        return None
    value = labels.get(term.key)
    if term.op == "has":
        return value is not None
    if term.op == "!=":  # libcalico-go's LabelNeValueNode: true when the label is absent too
        return value != term.values[0]
    if value is None:
        return term.op == "not in"
    if term.op == "==":
        return value == term.values[0]
    if term.op == "in":
        return value in term.values
    if term.op == "not in":
        return value not in term.values
    if term.op == "contains":
        return term.values[0] in value
    if term.op == "starts with":
        return value.startswith(term.values[0])
    return value.endswith(term.values[0])


def evaluate(
    expr: Expr,
    labels: Mapping[str, str],
    known: Callable[[str], bool] = lambda _key: True,
    *,
    is_global: bool = False,
) -> Tri:
    """Kleene evaluation: True, False, or None when it hangs on a key `known` says is not known."""
    if isinstance(expr, Term):
        return _term(expr, labels, known, is_global)
    values = [evaluate(c, labels, known, is_global=is_global) for c in expr.children]
    if expr.op == "not":
        return None if values[0] is None else not values[0]
    if expr.op == "and":
        if False in values:
            return False
        return None if None in values else True
    if True in values:
        return True
    return None if None in values else False


def keys(expr: Expr) -> set[str]:
    """Every label key the expression reads."""
    if isinstance(expr, Term):
        return {expr.key} if expr.key else set()
    out: set[str] = set()
    for child in expr.children:
        out |= keys(child)
    return out


def witness(expr: Expr) -> dict[str, str] | None:
    """Labels of an endpoint the expression selects, with as few labels as possible; None when no
    simple label set satisfies it (a contradiction, or negations only an absent label can meet)."""
    found = _witness(expr, {})
    if found is None or evaluate(expr, found) is not True:
        return None
    return found


def _witness(expr: Expr, labels: dict[str, str]) -> dict[str, str] | None:
    if isinstance(expr, Term):
        return _witness_term(expr, labels)
    if expr.op == "and":
        out: dict[str, str] | None = dict(labels)
        for child in expr.children:
            out = _witness(child, out) if out is not None else None
        return out
    if expr.op == "or":
        for child in expr.children:
            got = _witness(child, dict(labels))
            if got is not None and evaluate(child, got) is True:
                return got
        return None
    inner = expr.children[0]  # not: leave the label absent, or give it another value
    if isinstance(inner, Term) and inner.key and inner.key not in labels:
        if inner.op in ("has", "==", "in", "contains", "starts with", "ends with"):
            return labels
        if inner.op in ("!=", "not in"):
            return {**labels, inner.key: inner.values[0]} if inner.values else None
    return labels if evaluate(expr, labels) is True else None


def _witness_term(term: Term, labels: dict[str, str]) -> dict[str, str] | None:
    if term.op == "all":
        return labels
    if term.op == "global":
        return None
    have = labels.get(term.key)
    if term.op in ("!=", "not in"):
        return labels  # an absent label satisfies both (libcalico-go)
    want = {
        "has": have or "present",
        "==": term.values[0] if term.values else None,
        "in": term.values[0] if term.values else None,
        "contains": term.values[0] if term.values else None,
        "starts with": term.values[0] if term.values else None,
        "ends with": term.values[0] if term.values else None,
    }.get(term.op)
    if want is None:
        return None
    if have is not None:
        return labels if _term(term, labels, lambda _k: True, False) else None
    return {**labels, term.key: want}
