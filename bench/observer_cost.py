"""Observer hook cost: W1 on the engine as shipped against the same engine with its observer checks removed.

Usage: python bench/observer_cost.py [--rounds N] [--ops N]
The second engine is built from the same source files at import time, under the package name
`engine_noobs`, by an AST transform: every read of `observe.current` (and of the local `obs` the
executor copies it into) becomes `None`, then the comparisons, `if` statements and boolean operators
that depend on it are folded away. What is left is the engine as if it had no observer hook at all.
Both engines run W1 (a chain of 1000 mul, add, tanh, exp on 0-d float32 tensors, then backward) in
interleaved rounds, alternating which goes first; the result is the median of the per-round ratios
shipped / stripped. The hook "costs nothing measurable" when that ratio is within 5% of 1.
"""

from __future__ import annotations

import argparse
import ast
import gc
import importlib.abc
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "engine"
STRIPPED = "engine_noobs"


class StripObserver(ast.NodeTransformer):
    """Replace the observer by None and fold away everything that only runs when there is one."""

    def __init__(self) -> None:
        self.replaced = 0  # reads of the observer turned into None

    def visit_Import(self, node: ast.Import) -> ast.AST:  # noqa: N802 - ast visitor names
        if any(a.name == "engine" or a.name.startswith("engine.") for a in node.names):
            raise SystemExit("the engine imports itself with `import engine...`: extend StripObserver")
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:  # noqa: N802
        if node.level == 0 and node.module and (node.module == "engine" or node.module.startswith("engine.")):
            node.module = STRIPPED + node.module[len("engine"):]
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        if _is_observer(node) and isinstance(node.ctx, ast.Load):
            self.replaced += 1
            return ast.copy_location(ast.Constant(None), node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:  # noqa: N802
        if node.id == "obs" and isinstance(node.ctx, ast.Load):
            self.replaced += 1
            return ast.copy_location(ast.Constant(None), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        if (len(node.ops) == 1 and _is_none(node.left) and _is_none(node.comparators[0])
                and isinstance(node.ops[0], (ast.Is, ast.IsNot))):
            return ast.copy_location(ast.Constant(isinstance(node.ops[0], ast.Is)), node)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        absorbing = isinstance(node.op, ast.Or)  # True absorbs an `or`, False an `and`
        values = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, bool):
                if value.value is absorbing:
                    return ast.copy_location(ast.Constant(absorbing), node)
                continue  # the neutral element
            values.append(value)
        if not values:
            return ast.copy_location(ast.Constant(not absorbing), node)
        if len(values) == 1:
            return values[0]
        node.values = values
        return node

    def visit_If(self, node: ast.If) -> Any:  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant) and isinstance(node.test.value, bool):
            kept = node.body if node.test.value else node.orelse
            return kept or [ast.copy_location(ast.Pass(), node)]
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant) and isinstance(node.test.value, bool):
            return node.body if node.test.value else node.orelse
        return node


def _is_observer(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "current"
            and isinstance(node.value, ast.Name) and node.value.id == "observe")


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


class _StrippedLoader(importlib.abc.Loader):
    replaced = 0  # over all modules loaded
    unfolded: list[str] = []  # places where a None comparison survived the folding

    def __init__(self, path: Path) -> None:
        self.path = path

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        strip = StripObserver()
        tree = ast.fix_missing_locations(strip.visit(ast.parse(self.path.read_text(), str(self.path))))
        _StrippedLoader.replaced += strip.replaced
        for n in ast.walk(tree):
            if isinstance(n, ast.Compare) and _is_none(n.left) and any(map(_is_none, n.comparators)):
                _StrippedLoader.unfolded.append(f"{self.path.name}:{n.lineno}")
        exec(compile(tree, str(self.path), "exec"), module.__dict__)


class _StrippedFinder(importlib.abc.MetaPathFinder):
    """Finds engine_noobs[.x] in engine/, loading each module through the transform."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != STRIPPED and not fullname.startswith(STRIPPED + "."):
            return None
        relative = fullname[len(STRIPPED):].lstrip(".").replace(".", "/")
        base = SOURCE / relative if relative else SOURCE
        if base.is_dir():
            init = base / "__init__.py"
            return importlib.util.spec_from_file_location(
                fullname, init, loader=_StrippedLoader(init), submodule_search_locations=[str(base)])
        file = base.with_suffix(".py")
        if file.exists():
            return importlib.util.spec_from_file_location(fullname, file, loader=_StrippedLoader(file))
        return None


def load_engines() -> tuple[Any, Any]:
    sys.path.insert(0, str(ROOT))
    import engine

    sys.meta_path.insert(0, _StrippedFinder())
    stripped = importlib.import_module(STRIPPED)
    importlib.import_module(STRIPPED + ".executor")
    if not _StrippedLoader.replaced or _StrippedLoader.unfolded:
        raise SystemExit(f"observer checks not folded away: {_StrippedLoader.unfolded}")
    return engine, stripped


def w1(torch: Any, leaves: list, n_ops: int) -> list[np.ndarray]:
    x, w, b = leaves
    tanh, exp = torch.tanh, torch.exp
    v = x
    for _ in range(n_ops // 4):
        v = v * w
        v = v + b
        v = tanh(v)
        v = exp(v)
    v.backward()
    grads = [leaf.grad.numpy().copy() for leaf in leaves]
    for leaf in leaves:
        leaf.grad = None
    return grads


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--ops", type=int, default=1000)
    args = parser.parse_args()
    shipped, stripped = load_engines()
    engines = {"shipped": shipped, "stripped": stripped}
    leaves = {name: [e.tensor(np.array(v, np.float32), requires_grad=True) for v in (0.5, 0.9, 0.1)]
              for name, e in engines.items()}
    # Warm-up; the two engines must compute the same gradients, bit for bit.
    first, second = (w1(e, leaves[name], args.ops) for name, e in engines.items())
    if not all(np.array_equal(a, b) for a, b in zip(first, second)):
        raise SystemExit(f"the stripped engine computes different gradients: {first} != {second}")
    ratios = []
    times: dict[str, list[float]] = {name: [] for name in engines}
    for r in range(args.rounds):
        order = ["shipped", "stripped"] if r % 2 == 0 else ["stripped", "shipped"]
        took = {}
        for name in order:
            gc.collect()
            start = time.perf_counter()
            w1(engines[name], leaves[name], args.ops)
            took[name] = time.perf_counter() - start
            times[name].append(took[name])
        ratios.append(took["shipped"] / took["stripped"])
    median = statistics.median(ratios)
    quartiles = statistics.quantiles(ratios, n=4)
    print(f"W1 ({args.ops} ops), {args.rounds} interleaved rounds; "
          f"{_StrippedLoader.replaced} observer reads stripped")
    for name in engines:
        print(f"  {name:9s} median {statistics.median(times[name]) * 1e6 / args.ops:6.2f} us/op")
    print(f"  shipped / stripped: median of paired ratios {median:.3f} "
          f"(quartiles {quartiles[0]:.3f}-{quartiles[2]:.3f})")
    verdict = "within 5%" if abs(median - 1) <= 0.05 else "NOT within 5%"
    print(f"  observer hook cost with no observer attached: {(median - 1) * 100:+.1f}% ({verdict})")
    return 0 if abs(median - 1) <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
