"""Helpers for the engine tests: run the same code with torch and with the engine, compare."""

from __future__ import annotations

import os
import sys
import zlib
from typing import Any

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import engine  # noqa: E402
import engine.nn.functional as EF  # noqa: E402

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

torch.set_num_threads(1)


def case_arrays(case_id: str, shapes: tuple, opts: dict) -> list[np.ndarray]:
    rng = np.random.RandomState(zlib.crc32(case_id.encode()))
    arrays = []
    for shape in shapes:
        if opts.get("pos"):
            x = rng.uniform(0.5, 2.0, shape)
        elif opts.get("unit"):
            x = rng.uniform(0.1, 0.9, shape)
        else:
            # away from 0 so kinks (abs, relu, sign, clamp at 0) are not hit by finite differences
            x = rng.uniform(0.2, 1.0, shape) * rng.choice([-1.0, 1.0], shape)
        arrays.append(np.asarray(x))
    return arrays


def run_case(module: Any, code: str, arrays: list[np.ndarray], dtype: str = "float32",
             leaves: list | None = None) -> tuple[list, Any]:
    functional = TF if module is torch else EF
    if leaves is None:
        leaves = [module.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    names = dict(zip("abcdefgh", leaves))
    scope = {"T": module, "F": functional, **names}
    exec(code, scope)  # noqa: S102 - test code written here
    out = scope["out"]
    if isinstance(out, tuple):
        out = out[0]
    return leaves, out


def node_chain(fn: Any, depth: int) -> Any:
    """Node type names down `depth` levels of next_functions (None for missing edges)."""
    if fn is None:
        return None
    name = type(fn).__name__
    if depth == 0:
        return name
    edges = []
    for edge in fn.next_functions:
        if edge is None or edge[0] is None:
            edges.append(None)
        else:
            edges.append(node_chain(edge[0], depth - 1))
    return (name, tuple(edges))


def torch_saved(fn: Any) -> list[str]:
    return sorted(a[len("_saved_"):] for a in dir(fn) if a.startswith("_saved_"))


def to_np(t: Any) -> np.ndarray | None:
    if t is None:
        return None
    if isinstance(t, torch.Tensor):
        # PyTorch's efficient zeros (abs's second derivative...) convert only when forced
        return t.detach().numpy(force=t._is_zerotensor())
    return t._data


class RuleRecorder:
    """Collects the op-table rules of every node in a graph."""

    def __init__(self) -> None:
        self.rules: set[str] = set()

    def walk(self, fn: Any) -> None:
        stack = [fn]
        seen = set()
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            rule = getattr(node, "rule", None)
            if rule is not None:
                self.rules.add(rule.name)
            inner = getattr(node, "fn", None)
            if inner is not None and getattr(inner, "rule", None) is not None:
                self.rules.add(inner.rule.name)
                stack.extend(e[0] for e in inner.next_functions if e[0] is not None)
            stack.extend(e[0] for e in node.next_functions if e[0] is not None)
