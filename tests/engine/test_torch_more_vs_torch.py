"""torch.finfo/iinfo, index helpers, quantile, renorm, as_strided and the split/scatter family: small programs
run with torch and with the engine print the same (values, dtypes, grad_fn names, gradients, error messages)."""

from __future__ import annotations

import types

import pytest

import engine
from tests.engine.programs import run_program

torch = pytest.importorskip("torch")

PRELUDE = """
def t(f):
    try:
        r = f()
        print(r if not isinstance(r, tuple) else tuple(r))
    except Exception as e:
        print(type(e).__name__ + ":", e)


def grads(*xs):
    print(*[x.grad for x in xs])
    for x in xs:
        x.grad = None
"""

SNIPPETS = {
    # --- dtype limits and memory formats ------------------------------------------------------------------
    "finfo_iinfo": """
for d in [torch.float16, torch.bfloat16, torch.float32, torch.float64]:
    f = torch.finfo(d)
    print(f, [(a, getattr(f, a)) for a in dir(f) if not a.startswith('_')])
for d in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    i = torch.iinfo(d)
    print(i, [(a, getattr(i, a)) for a in dir(i) if not a.startswith('_')])
print(torch.finfo(), torch.finfo, torch.iinfo, type(torch.finfo()), torch.finfo(type=torch.float64).eps)
f = torch.finfo(torch.float32)
print(f == torch.finfo(torch.float32), f == torch.finfo(torch.float64), f is torch.finfo(torch.float32))
t(lambda: torch.finfo(torch.int32)); t(lambda: torch.iinfo(torch.float32)); t(lambda: torch.finfo(3))
t(lambda: torch.iinfo(torch.bool)); t(lambda: torch.iinfo()); t(lambda: torch.finfo(torch.bool))
t(lambda: torch.finfo('float32')); t(lambda: hash(f)); t(lambda: setattr(f, 'eps', 3))
print(torch.finfo(torch.half).eps, torch.iinfo(torch.long).max, torch.finfo(torch.double).tiny)
""",
    "memory_formats": """
print(torch.contiguous_format, torch.channels_last, torch.preserve_format, torch.channels_last_3d)
print(type(torch.contiguous_format), torch.memory_format, torch.contiguous_format == torch.contiguous_format)
x = torch.ones(2, 3)
print(x.contiguous(memory_format=torch.contiguous_format).is_contiguous(memory_format=torch.contiguous_format))
print(x.is_contiguous(memory_format=torch.channels_last), x.clone(memory_format=torch.preserve_format).shape)
y = torch.ones(2, 4, 5, 3).permute(0, 3, 1, 2)
print(y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last))
""",
}


def _run(module: types.ModuleType, code: str) -> str:
    return run_program(module, PRELUDE + code, show_warnings=True)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    code = SNIPPETS[name]
    expected = _run(torch, code)
    actual = _run(engine, code)
    assert actual == expected
