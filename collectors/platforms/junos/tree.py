"""A Junos configuration as one tree, whichever way it was printed.

`show configuration` prints the curly-brace hierarchy; `show configuration | display set` prints one
`set` path a line. Both are read into the same statements (a path of words and the line it came
from), and the statements into one tree of words, so every section reader works on either format.
Curly configs are tokenised here (words, "quoted strings", `{ } ; [ ]`, `#` and `/* */` comments);
no parser on PyPI reads both formats into a tree that keeps line numbers.

What Junos itself would not apply is left out: `inactive:` statements, `deactivate` paths, and the
contents of `groups` except where `apply-groups` inherits them (wildcards `<ge-*>` matched against
the names configured at that level, as Junos does). `protect:` is a flag only and is ignored.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from collectors.parsing.config_tree import Context

# An unterminated "string or /* annotation runs to the end of its line: a failed match would be retried
# from every later quote or slash of the line, which is quadratic on a crafted line.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\\?\Z)|/\*.*?(?:\*/|\Z)|[{};\[\]]|[^\s{};\[\]"]+', re.DOTALL)
# Far above any configuration Junos writes (a dozen levels, a few dozen words a statement): a deeper
# or longer one is hostile or broken, and reading it would cost time and memory quadratic in its size.
MAX_DEPTH = 64
MAX_WORDS = 512  # words of one statement's own path (the tree is walked recursively along it)
MAX_LISTED = 65_536  # values of one `[ ... ]` list (each is one more leaf, not one more level)


@dataclass(frozen=True)
class Statement:
    words: tuple[str, ...]
    line: int


@dataclass
class Node:
    """One word of the hierarchy, the line that set it first, and the words configured under it."""

    line: int = 0
    children: dict[str, Node] = field(default_factory=dict)

    def get(self, *path: str) -> Node | None:
        node: Node | None = self
        for word in path:
            node = node.children.get(word) if node is not None else None
        return node

    def has(self, *path: str) -> bool:
        return self.get(*path) is not None

    def value(self, *path: str) -> str | None:
        """The word configured after `path` (`mtu 9216` -> "9216"), or None."""
        node = self.get(*path)
        return next(iter(node.children), None) if node is not None else None

    def values(self, *path: str) -> list[str]:
        node = self.get(*path)
        return list(node.children) if node is not None else []

    def items(self, *path: str) -> Iterator[tuple[str, Node]]:
        node = self.get(*path)
        if node is not None:
            yield from node.children.items()

    def add(self, words: tuple[str, ...], line: int) -> None:
        node = self
        for word in words:
            child = node.children.get(word)
            if child is None:
                child = node.children[word] = Node(line)
            node = child

    def remove(self, words: tuple[str, ...]) -> None:
        parent = self.get(*words[:-1]) if words else None
        if parent is not None:
            parent.children.pop(words[-1], None)


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] == '"':
        return re.sub(r"\\(.)", r"\1", word[1:-1])
    return word


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    for line, raw_line in enumerate(text.splitlines(), start=1):
        if raw_line.lstrip().startswith("#"):  # a comment line (Junos writes `#` comments on their own)
            continue
        for match in _TOKEN.finditer(raw_line):
            tok = match.group(0)
            if not tok.startswith("/*"):  # an annotation
                yield tok, line


def curly_statements(text: str, ctx: Context) -> list[Statement]:
    """Statements of a curly-brace config: each leaf (`...;`) and each block opening (`... {`)."""
    out: list[Statement] = []
    stack: list[tuple[tuple[str, ...], bool]] = []  # (words of the block, inactive)
    words: list[str] = []
    in_list = False
    listed: list[str] = []
    start = 0

    def prefix() -> tuple[str, ...]:
        return tuple(w for ws, _ in stack for w in ws)

    def inactive_now() -> bool:
        return any(inactive for _, inactive in stack)

    def too_long(line: int) -> bool:
        if len(stack) <= MAX_DEPTH and len(words) <= MAX_WORDS and len(listed) <= MAX_LISTED:
            return False
        what = f"nested deeper than {MAX_DEPTH} levels" if len(stack) > MAX_DEPTH else "a statement too long"
        ctx.problem(line, f"{what}: the configuration is not one Junos writes; none of it is read")
        return True

    for tok, line in _tokens(text):
        if not words and not in_list:
            start = line
        if tok == "[":
            in_list, listed = True, []
        elif tok == "]":
            in_list = False
        elif in_list:
            listed.append(_unquote(tok))
            if len(listed) > MAX_LISTED and too_long(line):
                return []
        elif tok == "{":
            inactive = bool(words) and words[0] in ("inactive:",)
            clean = tuple(w for w in words if w not in ("inactive:", "protect:"))
            stack.append((clean, inactive))
            if too_long(line):
                return []
            if not inactive_now():
                out.append(Statement(prefix(), start))
            words = []
        elif tok == ";":
            inactive = bool(words) and words[0] == "inactive:"
            clean = tuple(w for w in words if w not in ("inactive:", "protect:"))
            if clean and not inactive and not inactive_now():
                if listed:
                    out.extend(Statement((*prefix(), *clean, v), start) for v in listed)
                else:
                    out.append(Statement((*prefix(), *clean), start))
            words, listed = [], []
        elif tok == "}":
            if not stack:
                ctx.problem(line, "unbalanced `}`: the configuration is not well formed; none of it is read")
                return []
            stack.pop()
            words = []
        else:
            words.append(_unquote(tok))
            if len(words) > MAX_WORDS and too_long(line):
                return []
    if stack or words:
        ctx.problem(None, "the configuration ends inside a block: it is truncated, so none of it is read")
        return []
    return out


def set_statements(text: str, ctx: Context) -> tuple[list[Statement], list[Statement]]:
    """`set` statements and `deactivate` paths of a `display set` config."""
    sets: list[Statement] = []
    deactivated: list[Statement] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        words = tuple(_unquote(m.group(0)) for m in _TOKEN.finditer(stripped))
        if not words:
            continue
        if len(words) > MAX_WORDS:
            ctx.problem(n, f"a statement of {len(words)} words (at most {MAX_WORDS} are read): left out")
            continue
        verb, path = words[0], words[1:]
        if verb == "set" and "[" in path and path[-1] == "]":  # `set ... export [ A B ]`: one per value
            head = path[: path.index("[")]
            sets.extend(Statement((*head, v), n) for v in path[len(head) + 1 : -1])
        elif verb == "set" and path:
            sets.append(Statement(path, n))
        elif verb == "deactivate" and path:
            deactivated.append(Statement(path, n))
        elif verb in ("delete", "activate", "protect", "unprotect"):
            continue
        else:
            ctx.problem(n, f"not a `set` statement: {stripped[:60]!r}")
    return sets, deactivated


def is_set_format(text: str) -> bool:
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.startswith(("set ", "deactivate "))
    return False


def build(text: str, ctx: Context) -> Node:
    """The applied configuration tree: inactive parts removed, groups inherited where applied."""
    if is_set_format(text):
        statements, deactivated = set_statements(text, ctx)
    else:
        statements, deactivated = curly_statements(text, ctx), []
    root = Node()
    groups = Node()
    for st in statements:
        if st.words[0] == "groups" and len(st.words) > 1:
            groups.add(st.words[1:], st.line)
        else:
            root.add(st.words, st.line)
    for st in deactivated:
        root.remove(st.words)
    _apply_groups(root, groups, (), ctx)
    return root


def _apply_groups(root: Node, groups: Node, path: tuple[str, ...], ctx: Context) -> None:
    """Junos configuration groups: `apply-groups G` at a level inherits G's statements under that level.
    Configured statements win (inheritance only adds what is not set)."""
    node = root.get(*path)
    if node is None:
        return
    for name in node.values("apply-groups"):
        group = groups.get(name, *path)
        if group is None:
            if not groups.has(name):
                ctx.problem(node.line or None, f"apply-groups {name}: no such group")
            continue
        _inherit(node, group)
    for word, child in list(node.children.items()):
        if word not in ("apply-groups", "apply-groups-except") and child.children:
            _apply_groups(root, groups, (*path, word), ctx)


def _is_leaf_set(node: Node) -> bool:
    return bool(node.children) and all(not c.children for c in node.children.values())


def _inherit(target: Node, source: Node) -> None:
    if _is_leaf_set(target) and _is_leaf_set(source):
        return  # `mtu 9216` configured: the group's `mtu 1500` does not apply
    for word, child in source.children.items():
        if word.startswith("<") and word.endswith(">"):
            pattern = word[1:-1]
            for name, existing in target.children.items():
                if fnmatch.fnmatchcase(name, pattern):
                    _inherit(existing, child)
            continue
        found = target.children.get(word)
        if found is None:
            found = target.children[word] = Node(child.line)
        _inherit(found, child)
