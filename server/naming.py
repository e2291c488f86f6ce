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


class _Namer(ast.NodeTransformer):
    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        names = tuple(n for n in (_target_names(t) for t in node.targets) if n is not None)
        if names:
            node.value = ast.copy_location(_call(node.value, names), node.value)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        self.generic_visit(node)
        name = _target_names(node.target)
        if node.value is not None and name is not None:
            node.value = ast.copy_location(_call(node.value, (name,)), node.value)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> object:
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        load = ast.Name(id=node.target.id, ctx=ast.Load())
        tag = ast.Expr(value=_call(load, (node.target.id,)))
        return [node, ast.copy_location(tag, node)]


def add_name_hooks(tree: ast.Module) -> ast.Module:
    """Wrap assigned values in `__gradstep_name__(value, names)`. The wrappers take their value's
    position; their inner parts get theirs from the caller's `ast.fix_missing_locations`."""
    return _Namer().visit(tree)
