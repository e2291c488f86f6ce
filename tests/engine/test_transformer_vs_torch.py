"""nn.Transformer, TransformerEncoder(Layer) and TransformerDecoder(Layer), and dropout's draw order on
non-contiguous inputs: programs run with torch and with the engine, output compared."""

from __future__ import annotations

import types

import pytest

import engine
from tests.engine.programs import run_program

torch = pytest.importorskip("torch")

PRELUDE = """
def r(t, n=16, d=3):
    return [round(v, d) for v in t.flatten().tolist()[:n]]
def attempt(f):
    try:
        out = f()
        print(tuple(out.shape))
    except Exception as e:
        print(type(e).__name__, e)
"""

PROGRAMS = {
    "dropout_draw_order_non_contiguous": """
for a in [torch.ones(3, 2, 4).transpose(0, 1), torch.ones(6, 4).t(), torch.ones(6, 4).t()[:, ::2],
          torch.ones(3, 4, 5).permute(2, 0, 1)[:, :, 1:], torch.ones(1, 4).expand(3, 4),
          torch.ones(2, 1, 3).transpose(0, 2), torch.ones(2, 3, 4, 5).permute(0, 2, 3, 1)]:
    torch.manual_seed(0)
    print((torch.nn.functional.dropout(a, 0.5) == 0).int().flatten().tolist())
    torch.manual_seed(0)
    print((torch.nn.Dropout(0.3)(a) == 0).int().flatten().tolist(), torch.rand(2))
""",
}

WARNING_PROGRAMS = ("activations_and_warnings", "norm_first_gelu_causal")


def _run(module: types.ModuleType, name: str) -> str:
    return run_program(module, PRELUDE + PROGRAMS[name], show_warnings=name in WARNING_PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_torch(name: str) -> None:
    expected = _run(torch, name)
    actual = _run(engine, name)
    assert actual.splitlines() == expected.splitlines()
