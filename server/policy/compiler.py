"""Compile-time policy: parse, check, rewrite with RestrictedPython, compile.

Order inside `compile_snippet`:
1. size check, `ast.parse` (SyntaxError -> SnippetSyntaxError with 1-based line/col);
2. `PolicyChecker`: our own read-only AST check (imports, `_` names, classes, decorators, default
   values, generators, look-alike identifiers, forbidden builtins...). It also rewrites a bare
   `except:` into `except Exception:` so resource limits (BaseException) cannot be swallowed;
3. `GradstepTransformer` (RestrictedPython's RestrictingNodeTransformer plus a few allowed patterns):
   attribute reads become `_getattr_(obj, "name")`, writes `_write_(obj).name = v`, subscripts
   `_getitem_`, loops `_getiter_`, augmented assignment `_inplacevar_` / `_augattr_` / `_augitem_`...
4. the caller's `transform` (runs on the RestrictedPython-rewritten tree; its own inserted names are
   not checked), `ast.fix_missing_locations`, builtin `compile`.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import types
from typing import Callable

from RestrictedPython.transformer import INSPECT_ATTRIBUTES, RestrictingNodeTransformer, copy_locations

from .errors import PolicyError, SnippetSyntaxError

SNIPPET_FILENAME = "<snippet>"
MAX_SOURCE_BYTES = 64 * 1024

# Modules a snippet may import (and "from X import ..."). Whether a torch submodule really exists is
# decided at run time by the facade; here only the shape of the name is checked.
ALLOWED_IMPORT_ROOTS = ("torch", "numpy", "math", "warnings", "io", "collections", "copy", "random", "itertools",
                        "functools", "time", "typing")
# Roots that are a single module (no submodules); `io` gives only BytesIO and StringIO (see guards.py).
SINGLE_MODULE_ROOTS = ("numpy", "math", "warnings", "io", "collections", "copy", "random", "itertools", "functools",
                       "time", "typing")
IMPORTS_ALLOWED = ("only torch (and its submodules), numpy, math, warnings, io, collections, copy, random, "
                   "itertools, functools, time and typing can be imported")

# Builtins a snippet cannot use; named here for a clear compile-time message (they are also absent
# from the run-time builtins, so a reference that slips through is a NameError).
FORBIDDEN_BUILTINS = frozenset({
    "delattr", "vars", "globals", "locals", "dir", "eval", "exec", "compile",
    "open", "input", "breakpoint", "help", "memoryview",
    "exit", "quit", "copyright", "credits", "license", "bytearray",
})

# Private attributes PyTorch tutorials legitimately read; the run-time guard re-checks the type.
PRIVATE_ATTR_ALLOWED = re.compile(
    r"^(_saved_[A-Za-z0-9_]+|_raw_saved_[A-Za-z0-9_]+|_version|_sequence_nr|_is_view|_nnz|_base"
    r"|__getitem__|__setitem__|__class__"
    r"|_forward_hooks|_forward_pre_hooks|_backward_hooks|_backward_pre_hooks|_state_dict_hooks|_state_dict_pre_hooks"
    r"|_load_state_dict_pre_hooks|_load_state_dict_post_hooks|_calculate_fan_in_and_fan_out|_calculate_correct_fan)$")
# A tensor's operator methods, read explicitly (`x.__iadd__(1)`, `x.__add__(y)`); the guard allows them on
# tensors only.
TENSOR_OPERATOR_METHODS = frozenset(f"__{op}__" for op in """add radd iadd sub rsub isub mul rmul imul truediv
rtruediv itruediv floordiv rfloordiv ifloordiv mod rmod imod pow rpow ipow matmul rmatmul imatmul neg pos abs
invert and rand iand or ror ior xor rxor ixor lshift rshift lt le gt ge eq ne len bool float int index
contains getitem setitem""".split())
# Attributes refused at compile time with a dedicated message (the guard refuses them too).
# (`.numpy()` itself is allowed: the guard hands out a plain view of the tensor's memory, see arrays.py.)
NUMPY_ATTRS = frozenset({"__array__", "__array_interface__", "__array_struct__"})
# A class's place in the hierarchy (`type(x).__mro__`, which tutorials print): the way to `object` and all classes.
CLASS_HIERARCHY_ATTRS = frozenset({"__mro__", "__bases__", "__base__", "__subclasses__"})

# The special methods a snippet's class may define: a constructor, the container protocol a Dataset needs,
# and the operator and protocol methods learners write (printing, comparing, hashing, calling, iterating,
# `with`). Never the copy/pickle protocol, attribute access, descriptors, __del__, __new__, __init_subclass__,
# __class_getitem__, __format__ or numeric conversions (trusted code calls those with internal objects or
# reads their answers unchecked), nor __hash__ (a chosen hash would have a lookup in one of trusted code's
# dicts hand the snippet's __eq__ the key it collides with; with __eq__ alone instances are unhashable); the others only in classes not deriving from a PyTorch class (checked when
# the class is made, see guards.Policy.build_class). A snippet's __exit__ is wrapped so it cannot swallow a sandbox limit.
ENGINE_SUBCLASS_SPECIAL_METHODS = frozenset({"__init__", "__len__", "__getitem__", "__iter__"})
CLASS_SPECIAL_METHODS = ENGINE_SUBCLASS_SPECIAL_METHODS | frozenset(
    f"__{m}__" for m in """setitem contains next call repr str eq ne lt le gt ge bool enter exit
    add radd sub rsub mul rmul truediv rtruediv matmul neg""".split())
SPECIAL_METHODS_SHOWN = ("__init__, __repr__, __str__, __call__, __len__, __getitem__, __setitem__, __iter__, "
                         "__next__, __contains__, __bool__, __enter__, __exit__, comparisons and "
                         "+ - * / @")

GRAD_MODE_DECORATORS = frozenset({"no_grad", "enable_grad", "inference_mode", "set_grad_enabled"})

AUG_OPS = {
    ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.Mod: "%=", ast.Pow: "**=",
    ast.LShift: "<<=", ast.RShift: ">>=", ast.BitOr: "|=", ast.BitXor: "^=", ast.BitAnd: "&=",
    ast.FloorDiv: "//=", ast.MatMult: "@=",
}


class _Positions:
    """Converts the AST's UTF-8 byte columns to 1-based character columns."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.lines: list[str] | None = None  # split when a position is first asked for

    def col(self, line: int | None, byte_col: int | None) -> int | None:
        if line is None or byte_col is None:
            return None
        if self.lines is None:
            self.lines = re.split(r"\r\n|\r|\n", self.code)
        if 1 <= line <= len(self.lines):
            text = self.lines[line - 1]
            if not text.isascii():
                return len(text.encode("utf-8")[:byte_col].decode("utf-8", "ignore")) + 1
        return byte_col + 1

    def error(self, node: ast.AST | None, message: str, *, at_end: int | None = None) -> PolicyError:
        """A PolicyError at `node`; with `at_end`, point at the last `at_end` bytes of the node."""
        line = getattr(node, "lineno", None)
        end_line = getattr(node, "end_lineno", None)
        start = getattr(node, "col_offset", None)
        end = getattr(node, "end_col_offset", None)
        if at_end is not None and end is not None and end_line is not None:
            line, start = end_line, max(0, end - at_end)
        return PolicyError(message, line, self.col(line, start), end_line, self.col(end_line, end))


def _dotted(node: ast.AST) -> str | None:
    """'a.b.c' for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_super_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def special_private_attribute(node: ast.Attribute) -> bool:
    """The few `_`-names allowed as attribute *reads*: `x.__name__`, `x.__class__`, `super().__init__`,
    `d.__setitem__`, `grad_fn._saved_self`, `grad_fn._raw_saved_self`, `t._version`, `grad_fn._sequence_nr`,
    `t.__iadd__`, `m._forward_hooks`."""
    if not isinstance(node.ctx, ast.Load):
        return False
    if node.attr == "__name__":
        return True
    if node.attr == "__init__":
        return _is_super_call(node.value)
    return bool(PRIVATE_ATTR_ALLOWED.match(node.attr)) or node.attr in TENSOR_OPERATOR_METHODS


def _format_fields(template: str) -> list[str]:
    """Field names of a str.format template, including nested ones in format specs."""
    import string

    out: list[str] = []
    try:
        for _, field, spec, _ in string.Formatter().parse(template):
            if field is not None:
                out.append(field)
            if spec:
                out.extend(_format_fields(spec))
    except (ValueError, RecursionError):
        pass
    return out


def format_field_is_unsafe(field: str) -> bool:
    return "." in field or "[" in field


class PolicyChecker(ast.NodeVisitor):
    """Our own AST check; raises the first violation (in source order) as a PolicyError."""

    def __init__(self, pos: _Positions, tree: ast.AST) -> None:
        self.pos = pos
        self.tree = tree
        self.errors: list[PolicyError] = []
        self._bound: set[str] | None = None  # collected the first time a forbidden builtin is read
        self.class_depth = 0
        self.in_class_body = False

    # -- helpers ------------------------------------------------------------------------------
    def fail(self, node: ast.AST, message: str, **kw: int) -> None:
        self.errors.append(self.pos.error(node, message, **kw))

    def check_identifier(self, node: ast.AST, name: str | None, what: str = "names") -> None:
        if name is None:
            return
        if not name.isascii():
            self.fail(node, f"non-ASCII identifiers are not allowed: {name!r}")
        elif name.startswith("_") and name != "_":
            self.fail(node, f"{what} starting with '_' are not allowed: {name!r}")

    def check_default(self, node: ast.AST) -> None:
        ok = (ast.Constant, ast.Name, ast.Attribute, ast.Tuple, ast.List, ast.UnaryOp)
        for sub in ast.walk(node):
            if isinstance(sub, ast.UnaryOp) and not isinstance(sub.op, (ast.USub, ast.UAdd)):
                break
            if isinstance(sub, (ast.expr_context, ast.unaryop)):
                continue
            if not isinstance(sub, ok):
                break
        else:
            return
        self.fail(node, "default argument values must be constants or names "
                        "(no calls or expressions in defaults)")

    def check_arguments(self, args: ast.arguments) -> None:
        for d in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self.check_default(d)

    def check_decorator(self, dec: ast.expr, in_class: bool) -> None:
        """`@d def f` is `f = d(f)`, which the snippet may write anyway: a decorator is a name, a dotted
        name or a call of one (the expression itself is checked like any other)."""
        name = _dotted(dec)
        if name == "staticmethod" and not in_class:
            self.fail(dec, "@staticmethod is only allowed on methods of a class")
            return
        if name is not None or (isinstance(dec, ast.Call) and _dotted(dec.func) is not None):
            return
        self.fail(dec, "this decorator is not allowed (a decorator must be a name, a dotted name "
                       "or a call of one, like @timed, @torch.no_grad() or @functools.wraps(fn))")

    # -- visitors -------------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if not (node.id == "__name__" and isinstance(node.ctx, ast.Load)):  # `if __name__ == "__main__":`
            self.check_identifier(node, node.id)
        if node.id == "printed" and isinstance(node.ctx, ast.Load):
            # RestrictedPython would turn the read into the print collector itself, not text
            self.fail(node, "the name 'printed' is reserved (what print() writes goes to the output panel)")
        if isinstance(node.ctx, ast.Load) and node.id in FORBIDDEN_BUILTINS and not self.bound(node.id):
            self.fail(node, f"the builtin {node.id!r} is not allowed")

    def bound(self, name: str) -> bool:
        """Whether the snippet binds `name` itself anywhere (then it is not the builtin)."""
        if self._bound is None:
            self._bound = _collect_bound(self.tree)
        return name in self._bound

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        span = len(attr.encode("utf-8"))
        if not attr.isascii():
            self.fail(node, f"non-ASCII identifiers are not allowed: {attr!r}", at_end=span)
        elif attr in NUMPY_ATTRS:
            self.fail(node, f"'.{attr}' is not allowed: a tensor never hands out its NumPy array "
                            "(use .tolist() or .item())", at_end=span)
        elif attr in CLASS_HIERARCHY_ATTRS:
            self.fail(node, f"'.{attr}' is not allowed: class hierarchies are not available in gradstep "
                            "(type(x).__name__, isinstance() and issubclass() work)", at_end=span)
        elif attr.startswith("_") and attr != "_" and not special_private_attribute(node):
            self.fail(node, f"names starting with '_' are not allowed: {attr!r}", at_end=span)
        elif attr in INSPECT_ATTRIBUTES:
            self.fail(node, f"frame, code, traceback and generator internals are not allowed: {attr!r}",
                      at_end=span)
        elif attr in ("format", "format_map") and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            if attr == "format_map" or any(format_field_is_unsafe(f) for f in _format_fields(node.value.value)):
                self.fail(node, "attribute or index access inside format strings is not allowed",
                          at_end=span)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.check_module(node, alias.name)
            self.check_identifier(node, alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.fail(node, "relative imports are not allowed")
            return
        self.check_module(node, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                self.fail(node, "'from ... import *' is not allowed")
                continue
            self.check_identifier(node, alias.name)
            self.check_identifier(node, alias.asname)

    def check_module(self, node: ast.AST, name: str) -> None:
        root = name.split(".")[0]
        if root not in ALLOWED_IMPORT_ROOTS or (root in SINGLE_MODULE_ROOTS and name != root):
            self.fail(node, f"import of {name!r} is not allowed: {IMPORTS_ALLOWED}")
        for part in name.split("."):
            self.check_identifier(node, part)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        in_class = self.in_class_body
        if node.name in CLASS_SPECIAL_METHODS and in_class:
            pass
        elif node.name.startswith("__") and in_class:
            self.fail(node, f"defining {node.name!r} is not allowed (of the special methods only "
                            f"{SPECIAL_METHODS_SHOWN} may be defined)")
        else:
            self.check_identifier(node, node.name)
        for dec in node.decorator_list:
            self.check_decorator(dec, in_class)
        self.check_arguments(node.args)
        for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            self.check_identifier(a, a.arg)
        for a in (node.args.vararg, node.args.kwarg):
            if a is not None:
                self.check_identifier(a, a.arg)
        self.in_class_body = False
        self.generic_visit(node)
        self.in_class_body = in_class

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.fail(node, "async functions are not allowed")

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.check_arguments(node.args)
        for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            self.check_identifier(node, a.arg)
        for a in (node.args.vararg, node.args.kwarg):
            if a is not None:
                self.check_identifier(node, a.arg)
        in_class, self.in_class_body = self.in_class_body, False
        self.generic_visit(node)
        self.in_class_body = in_class

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.check_identifier(node, node.name)
        if node.keywords:
            self.fail(node.keywords[0].value if node.keywords else node,
                      "class keywords (metaclass=...) are not allowed")
        for dec in node.decorator_list:
            self.check_decorator(dec, False)
        for base in node.bases:
            if _dotted(base) is None:
                self.fail(base, "class bases must be plain names like torch.autograd.Function "
                                "or nn.Module")
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef) or isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
                continue
            self.fail(stmt, "only methods, docstrings and simple assignments are allowed in a class body")
        outer = self.in_class_body
        self.in_class_body = True
        self.generic_visit(node)
        self.in_class_body = outer

    def visit_arg(self, node: ast.arg) -> None:
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        self.check_identifier(node, node.arg, "keyword arguments")
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for n in node.names:
            self.check_identifier(node, n)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        for n in node.names:
            self.check_identifier(node, n)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.check_identifier(node, node.name)
        if node.type is None:
            # A bare `except:` would also catch the BaseException our limits raise.
            node.type = ast.Name("Exception", ast.Load())
            copy_locations(node.type, node)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.AST) -> None:  # pragma: no cover - RestrictedPython refuses match
        self.generic_visit(node)


def _collect_bound(tree: ast.AST) -> set[str]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


def _check_lookalike_tokens(code: str, pos: _Positions) -> PolicyError | None:
    """Refuse non-ASCII identifiers; Python NFKC-normalises them, so the AST alone cannot see them."""
    if code.isascii():
        return None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.NAME and not tok.string.isascii():
                line, col = tok.start
                return PolicyError(f"non-ASCII identifiers are not allowed: {tok.string!r}",
                                   line, col + 1, tok.end[0], tok.end[1] + 1)
            if tok.type == tokenize.STRING and not tok.string.isascii():
                prefix = tok.string[: len(tok.string) - len(tok.string.lstrip("rRbBuUfF"))]
                if "f" in prefix.lower() and _fstring_expr_non_ascii(tok.string[len(prefix):]):
                    line, col = tok.start
                    return PolicyError("non-ASCII characters are not allowed inside f-string "
                                       "expressions", line, col + 1, tok.end[0], tok.end[1] + 1)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return None


def _fstring_expr_non_ascii(body: str) -> bool:
    depth = 0
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "{":
            if depth == 0 and body.startswith("{{", i):
                i += 2
                continue
            depth += 1
        elif ch == "}":
            if depth == 0 and body.startswith("}}", i):
                i += 2
                continue
            depth = max(0, depth - 1)
        elif depth > 0 and not ch.isascii():
            return True
        i += 1
    return False


class GradstepTransformer(RestrictingNodeTransformer):
    """RestrictedPython's transformer plus the patterns PyTorch tutorials need."""

    def __init__(self, pos: _Positions) -> None:
        super().__init__()
        self.pos = pos
        self.located: list[PolicyError] = []

    def error(self, node: ast.AST, info: str) -> None:  # keep positions, not just "Line N: ..."
        super().error(node, info)
        message = info.rstrip(".")
        if message.endswith("statements are not allowed"):
            message = message.replace("statements are not allowed", "is not allowed")
        self.located.append(self.pos.error(node, message))

    def check_name(self, node: ast.AST, name: str | None, allow_magic_methods: bool = False) -> None:
        # methods named in CLASS_SPECIAL_METHODS (PolicyChecker allows them only in a class body)
        if allow_magic_methods and name in CLASS_SPECIAL_METHODS and getattr(node, "col_offset", 0) != 0:
            return
        if name == "__name__" and isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return  # the module's name ("__main__"), read from the snippet's globals
        super().check_name(node, name, allow_magic_methods)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.AST:
        # rebinding a variable of the enclosing function (its names are checked like any other)
        for name in node.names:
            self.check_name(node, name)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if special_private_attribute(node):
            value = self.visit(node.value)
            new = ast.Call(func=ast.Name("_getattr_", ast.Load()),
                           args=[value, ast.Constant(node.attr)], keywords=[])
            copy_locations(new, node)
            return new
        return super().visit_Attribute(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        target = node.target
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            op = AUG_OPS[type(node.op)]
            value = self.visit(node.value)
            obj = self.visit(target.value)
            if isinstance(target, ast.Attribute):
                if target.attr.startswith("_"):
                    self.error(node, f'"{target.attr}" is an invalid attribute name because it starts with "_"')
                    return node
                call = ast.Call(func=ast.Name("_augattr_", ast.Load()),
                                args=[obj, ast.Constant(target.attr), ast.Constant(op), value], keywords=[])
            else:
                key = self.visit(target.slice)
                call = ast.Call(func=ast.Name("_augitem_", ast.Load()),
                                args=[obj, key, ast.Constant(op), value], keywords=[])
            new = ast.Expr(call)
            copy_locations(call, node)
            copy_locations(new, node)
            return new
        return super().visit_AugAssign(node)


def _first(errors: list[PolicyError]) -> PolicyError:
    return min(errors, key=lambda e: (e.line or 0, e.col or 0))


def compile_snippet(
    code: str,
    filename: str = SNIPPET_FILENAME,
    transform: Callable[[ast.Module], ast.Module] | None = None,
) -> types.CodeType:
    """Check `code` against the policy and compile it for `exec` in `snippet_globals(...)`.

    Raises PolicyError (line/col 1-based) for anything not allowed, and SnippetSyntaxError (a
    PolicyError subclass with error_type "SyntaxError") when the code does not parse.
    """
    if not isinstance(code, str):
        raise PolicyError("the code must be a string")
    try:
        size = len(code.encode("utf-8", "surrogatepass"))
    except UnicodeError:  # pragma: no cover
        size = len(code) * 4
    if size > MAX_SOURCE_BYTES:
        raise PolicyError(f"the code is too long: source size limit ({MAX_SOURCE_BYTES // 1024} KiB) exceeded")
    pos = _Positions(code)
    try:
        tree = ast.parse(code, filename, "exec")
    except SyntaxError as e:
        line = e.lineno
        col = e.offset if e.offset and e.offset > 0 else (1 if line else None)
        end_line = getattr(e, "end_lineno", None)
        end_col = getattr(e, "end_offset", None)
        if end_col is not None and end_col <= 0:
            end_col = None
        raise SnippetSyntaxError(e.msg, line, col, end_line, end_col) from None
    except (ValueError, UnicodeError) as e:  # null bytes, lone surrogates
        raise SnippetSyntaxError(f"the code cannot be parsed: {e}") from None
    except (RecursionError, MemoryError):
        raise SnippetSyntaxError("the code is nested too deeply to be parsed") from None

    lookalike = _check_lookalike_tokens(code, pos)
    if lookalike is not None:
        raise lookalike

    checker = PolicyChecker(pos, tree)
    try:
        checker.visit(tree)
    except RecursionError:
        raise PolicyError("the code is nested too deeply") from None
    if checker.errors:
        raise _first(checker.errors)

    rp = GradstepTransformer(pos)
    try:
        tree = rp.visit(tree)
    except RecursionError:
        raise PolicyError("the code is nested too deeply") from None
    if rp.located or rp.errors:
        if rp.located:
            raise _first(rp.located)
        raise PolicyError(rp.errors[0])  # pragma: no cover - every error goes through error()

    if transform is not None:
        tree = transform(tree)
    ast.fix_missing_locations(tree)
    try:
        return compile(tree, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        raise SnippetSyntaxError(str(e), getattr(e, "lineno", None), getattr(e, "offset", None)) from None
    except (RecursionError, MemoryError):
        raise SnippetSyntaxError("the code is nested too deeply to be compiled") from None
