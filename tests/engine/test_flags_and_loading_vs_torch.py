"""requires_grad only takes a bool, torch.load calls a map_location callable once per storage, and a node's
`_raw_saved_<slot>` is a SavedTensor whose hooks work: printed output compared with PyTorch's."""

from __future__ import annotations

import pytest

import engine
from tests.engine.programs import TRY, run_program as _run

torch = pytest.importorskip("torch")

SNIPPETS = {
    "requires_grad_takes_a_bool": TRY + """
x = torch.ones(2)
for v in [1, 0, None, 1.0, print, torch.tensor(True), True]:
    def set_it():
        x.requires_grad = v
        return x.requires_grad
    t(set_it)
y = torch.ones(2, requires_grad=True) * 2
def set_on_non_leaf():
    y.requires_grad = 1
t(set_on_non_leaf)
t(lambda: torch.ones(2, requires_grad=True).requires_grad)
""",
    "map_location_callable_sees_each_storage": TRY + """
import io
buf = io.BytesIO()
w = torch.arange(6.0)
torch.save({'a': w[:2], 'b': w, 'c': torch.tensor([1, 2, 3]), 'n': 4}, buf)
for f in [lambda s, loc: None, lambda s, loc: s, lambda s, loc: s.cpu(), lambda s, loc: 5, lambda s: s]:
    buf.seek(0)
    t(lambda: torch.load(buf, map_location=f))
seen = []
def mapper(storage, loc):
    seen.append((type(storage).__name__, loc, str(storage.device), storage.nbytes(), storage.size(), len(storage)))
    return storage
buf.seek(0)
print(torch.load(buf, map_location=mapper), seen)
""",
    "raw_saved_hooks": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
raw = y.grad_fn._raw_saved_self
print(type(raw).__name__, hasattr(raw, 'register_hooks'))
raw.register_hooks(lambda t: t * 10, lambda t: t / 5)
y.sum().backward()
print(x.grad)
z = x.exp()
print(type(z.grad_fn._raw_saved_result).__name__)
try:
    z.grad_fn._raw_saved_nope
except AttributeError as e:
    print(e)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_output_matches_torch(name: str) -> None:
    code = SNIPPETS[name]
    assert _run(engine, code) == _run(torch, code)
