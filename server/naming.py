"""An AST rewrite that reports which variable each assigned tensor was bound to (`y`, `loss`, `m.w`)."""

from __future__ import annotations

import ast

NAME_HOOK = "__gradstep_name__"


def _target_names(target: ast.expr) -> object:
    """A name string for a simple target, a tuple of them for an unpacking target, else None."""
    if isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
        return ast.unparse(target)
    if isinstance(target, (ast.Tuple, ast.List)):
        return tuple(_target_names(t) for t in target.elts)
    return None


def _call(value: ast.expr, names: object) -> ast.Call:
    return ast.Call(
        func=ast.Name(id=NAME_HOOK, ctx=ast.Load()),
        args=[value, ast.Constant(value=names)],
        keywords=[],
    )


def _tag_block(body: list) -> None:
    """Tag the assignments of one statement list and of the blocks nested in it, in place."""
    i = 0
    while i < len(body):
        node = body[i]
        if isinstance(node, ast.Assign):
            names = tuple(n for n in (_target_names(t) for t in node.targets) if n is not None)
            if names:
                node.value = ast.copy_location(_call(node.value, names), node.value)
        elif isinstance(node, ast.AnnAssign):
            name = _target_names(node.target)
            if node.value is not None and name is not None:
                node.value = ast.copy_location(_call(node.value, (name,)), node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            load = ast.Name(id=node.target.id, ctx=ast.Load())
            i += 1
            body.insert(i, ast.copy_location(ast.Expr(value=_call(load, (node.target.id,))), node))
        else:
            for block in _BLOCK_FIELDS:
                inner = getattr(node, block, None)
                if isinstance(inner, list):
                    _tag_block(inner)
            for part in getattr(node, "handlers", []) + getattr(node, "cases", []):
                _tag_block(part.body)
        i += 1


_BLOCK_FIELDS = ("body", "orelse", "finalbody")  # the statement lists of compound statements


def add_name_hooks(tree: ast.Module) -> ast.Module:
    """Wrap assigned values in `__gradstep_name__(value, names)`. Assignments are statements, so
    only statement lists are walked, not expressions. The wrappers take their value's position;
    their inner parts get theirs from the caller's `ast.fix_missing_locations`."""
    _tag_block(tree.body)
    return tree
