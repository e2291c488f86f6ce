"""nn.EmbeddingBag and F.embedding_bag: values, saved attributes, weight and per_sample_weights gradients, the
quirks of PyTorch's CPU kernel (frequency scaling, include_last_offset), module reprs and errors compared with
PyTorch."""

from __future__ import annotations

import pytest

from tests.engine.programs import CHAIN, TRY, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = CHAIN + TRY + """
F = torch.nn.functional
"""

PROGRAM = """torch.manual_seed(0)
w = torch.randn(6, 3, requires_grad=True)
inp = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0])
off = torch.tensor([0, 3, 3, 6])
for mode in ['sum', 'mean', 'max']:
    for pi in [None, 2]:
        o = F.embedding_bag(inp, w, off, mode=mode, padding_idx=pi)
        fn = o.grad_fn
        print(mode, pi, o, fn, sorted(a for a in dir(fn) if a.startswith('_saved')))
        print(fn._saved_result1, fn._saved_result2, fn._saved_result3, fn._saved_offsets, fn._saved_padding_idx, fn._saved_mode, fn._saved_weight_sym_argsize_0, fn._saved_per_sample_weights, fn._saved_indices)
        (o * torch.arange(12.).view(4, 3)).sum().backward(); print(w.grad); w.grad = None
o = F.embedding_bag(inp, w, off, include_last_offset=True); print(o, o.grad_fn._saved_offsets, o.grad_fn._saved_result2, o.grad_fn._saved_result1)
o = F.embedding_bag(inp.view(2, 4), w, mode='max'); print(o, o.grad_fn._saved_offsets, o.grad_fn._saved_result2, o.grad_fn._saved_result1, o.grad_fn._saved_result3, o.grad_fn._saved_indices)
psw = torch.rand(8, requires_grad=True)
o = F.embedding_bag(inp, w, off, mode='sum', per_sample_weights=psw, padding_idx=2)
print(o, o.grad_fn._saved_per_sample_weights, o.grad_fn._saved_result1, o.grad_fn._saved_result2)
(o * torch.arange(12.).view(4, 3)).sum().backward(); print(psw.grad, w.grad); w.grad = None
o = F.embedding_bag(inp, w, off, mode='mean', padding_idx=2, scale_grad_by_freq=True)
(o * torch.arange(12.).view(4, 3)).sum().backward(); print(w.grad); w.grad = None
o = F.embedding_bag(inp, w, off, mode='sum', scale_grad_by_freq=True)
(o * torch.arange(12.).view(4, 3)).sum().backward(); print(w.grad); w.grad = None
g = torch.autograd.grad(F.embedding_bag(inp, w, off).sum(), w, create_graph=True)[0]; print(g.grad_fn, g.requires_grad)
o = F.embedding_bag(inp.view(2, 4), w, mode='sum', per_sample_weights=psw.view(2, 4)); print(o)
g = torch.autograd.grad(o.sum(), psw, create_graph=True)[0]; print(g, g.grad_fn)
torch.manual_seed(0)
m = torch.nn.EmbeddingBag(5, 3, mode='max', padding_idx=1); print(m, m.weight)
m2 = torch.nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True); print(m2)
print(m2(torch.tensor([[1, 2], [3, 4]])), m2.weight[1:5])
m3 = torch.nn.EmbeddingBag.from_pretrained(torch.ones(3, 2), mode='sum'); print(m3, m3.weight.requires_grad, m3(torch.tensor([0, 1, 2]), torch.tensor([0, 1])))
print(torch.nn.EmbeddingBag(4, 2, padding_idx=-1, include_last_offset=True))
print(F.embedding_bag(torch.tensor([], dtype=torch.long), w, torch.tensor([0, 0])))
wd = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)
print(F.embedding_bag(torch.tensor([[0, 4], [3, 3]]), wd, mode='mean'))
print(F.embedding_bag(torch.tensor([1, 2], dtype=torch.int32), w, torch.tensor([0], dtype=torch.int32), mode='sum'))
t(lambda: F.embedding_bag(torch.tensor([1, 7]), w, torch.tensor([0])))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([1])))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0, 3])))
t(lambda: F.embedding_bag(torch.tensor([1., 2]), w, torch.tensor([0])))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode='x'))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), w))
t(lambda: F.embedding_bag(torch.tensor([[1, 2]]), w, torch.tensor([0])))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), per_sample_weights=torch.ones(3)))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), padding_idx=7))
t(lambda: F.embedding_bag(torch.tensor([1, -1]), w, torch.tensor([0])))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode='mean', per_sample_weights=torch.ones(2)))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode='max', scale_grad_by_freq=True))
t(lambda: F.embedding_bag(torch.tensor([1, 2]), torch.ones(2, 3, 4), torch.tensor([0])))
t(lambda: torch.nn.EmbeddingBag(3, 2, padding_idx=3))
for mode in ['sum', 'mean', 'max']:
    o = F.embedding_bag(inp, w, off, include_last_offset=True, mode=mode); print(o)
    if mode == 'sum': continue
    (o * torch.arange(9.).view(3, 3)).sum().backward(); print(w.grad); w.grad = None
"""


def test_embedding_bag_matches_torch() -> None:
    assert_matches_torch(PRELUDE + PROGRAM)
