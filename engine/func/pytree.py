"""The nested containers torch.func walks (tuples, lists, dicts): flatten to leaves and rebuild."""

from __future__ import annotations

from typing import Any, Callable


class TreeSpec:
    """The shape of a nested container: its type, its dict keys (context) and its children's specs."""

    def __init__(self, kind: type | None, context: Any = None, children: list | None = None) -> None:
        self.type = kind  # None for a leaf
        self.context = context
        self.children = children or []

    @property
    def num_leaves(self) -> int:
        return 1 if self.type is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children == other.children)

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        text = f"TreeSpec({self.type.__name__}, {self.context}, ["
        if self.children:
            indent += 2
            text += self.children[0].__repr__(indent) + ("," if len(self.children) > 1 else "")
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return text + "])"


def tree_flatten(tree: Any) -> tuple[list, TreeSpec]:
    if isinstance(tree, (tuple, list)) and (type(tree) in (tuple, list)):
        leaves: list = []
        children = []
        for item in tree:
            sub, spec = tree_flatten(item)
            leaves += sub
            children.append(spec)
        return leaves, TreeSpec(type(tree), None, children)
    if type(tree) is dict:
        leaves, children = [], []
        for key in tree:
            sub, spec = tree_flatten(tree[key])
            leaves += sub
            children.append(spec)
        return leaves, TreeSpec(dict, list(tree), children)
    return [tree], TreeSpec(None)


def tree_unflatten(leaves: list, spec: TreeSpec) -> Any:
    it = iter(leaves)

    def build(s: TreeSpec) -> Any:
        if s.type is None:
            return next(it)
        items = [build(c) for c in s.children]
        if s.type is dict:
            return dict(zip(s.context, items))
        return s.type(items)

    return build(spec)


def tree_map(fn: Callable, tree: Any) -> Any:
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix: Any, tree: Any) -> list | None:
    """One value of `prefix` per leaf of `tree` (a leaf of prefix covers a whole subtree); None when the
    structures do not match."""
    if not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * tree_flatten(tree)[1].num_leaves
    if isinstance(prefix, dict):
        if type(tree) is not dict or list(prefix) != list(tree):
            return None
        pairs = [(prefix[k], tree[k]) for k in prefix]
    else:
        if type(tree) not in (tuple, list) or len(prefix) != len(tree):
            return None
        pairs = list(zip(prefix, tree))
    out: list = []
    for p, t in pairs:
        sub = broadcast_prefix(p, t)
        if sub is None:
            return None
        out += sub
    return out
