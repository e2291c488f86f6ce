"""torch.nn.utils.rnn (pad_sequence, pack_padded_sequence, PackedSequence...) and recurrent layers on packed
sequences: printed values, graphs, gradients and errors compared with PyTorch."""

from __future__ import annotations

import pytest

from tests.engine.programs import CHAIN, TRY, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = CHAIN + TRY + """
rnn_utils = torch.nn.utils.rnn
PackedSequence, pad_sequence, unpad_sequence = rnn_utils.PackedSequence, rnn_utils.pad_sequence, rnn_utils.unpad_sequence
pack_padded_sequence, pad_packed_sequence = rnn_utils.pack_padded_sequence, rnn_utils.pad_packed_sequence
pack_sequence, unpack_sequence = rnn_utils.pack_sequence, rnn_utils.unpack_sequence
invert_permutation = rnn_utils.invert_permutation
torch.manual_seed(0)
a = torch.randn(3, 2, requires_grad=True)
b = torch.randn(2, 2, requires_grad=True)
c = torch.randn(1, 2, requires_grad=True)
"""

PROGRAMS = {
    "pad_sequence": """
p = pad_sequence([a, b, c])
print(p)
chain(p)
print(pad_sequence([a, b, c], batch_first=True, padding_value=-1, padding_side='left'))
print(pad_sequence(a), pad_sequence((b, c), True).shape)
q = pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])], padding_value=7.5)
print(q, q.dtype)
(p * torch.arange(18.).reshape(3, 3, 2)).sum().backward()
print(a.grad, b.grad, c.grad)
t(lambda: pad_sequence([]))
t(lambda: pad_sequence(5))
t(lambda: pad_sequence([a], padding_side='middle'))
t(lambda: pad_sequence([a, torch.randn(2, 3)]))
""",
    "unpad_sequence": """
p = pad_sequence([a, b, c])
print(unpad_sequence(p, torch.tensor([3, 2, 1])))
print(p.shape, p.grad_fn)
q = pad_sequence([a, b, c], batch_first=True)
print(unpad_sequence(q, torch.tensor([3, 2, 1]), batch_first=True))
""",
    "pack_padded_sequence": """
x = pad_sequence([a, b, c], batch_first=True)
pk = pack_padded_sequence(x, torch.tensor([3, 2, 1]), batch_first=True)
print(pk)
chain(pk.data)
fn = pk.data.grad_fn
print(fn._saved_batch_first, fn._saved_input_sym_sizes, fn._saved_result1)
print(type(pk).__name__, isinstance(pk, tuple), len(pk), pk._fields)
data, batch_sizes, sorted_indices, unsorted_indices = pk
print(batch_sizes, sorted_indices, unsorted_indices, pk[1] is batch_sizes)
(pk.data * torch.arange(12.).reshape(6, 2)).sum().backward()
print(a.grad, b.grad, c.grad)
y = torch.randn(4, 3, 2, requires_grad=True)
p2 = pack_padded_sequence(y, [4, 4, 2])
g, = torch.autograd.grad((p2.data ** 2).sum(), y, create_graph=True)
print(g)
chain(g)
""",
    "pack_unsorted": """
x = pad_sequence([c, a, b], batch_first=True)
pk = pack_padded_sequence(x, [1, 3, 2], batch_first=True, enforce_sorted=False)
print(pk)
chain(pk.data)
out, lengths = pad_packed_sequence(pk, batch_first=True, padding_value=-9.0)
print(out, lengths)
chain(out)
out2, lengths2 = pad_packed_sequence(pk, total_length=5)
print(out2.shape, lengths2)
(out * torch.arange(18.).reshape(3, 3, 2)).sum().backward()
print(a.grad, b.grad, c.grad)
print(invert_permutation(torch.tensor([2, 0, 1])), invert_permutation(None))
ps = pack_sequence([c, a, b], enforce_sorted=False)
print(ps.sorted_indices, ps.unsorted_indices, ps.batch_sizes)
print(unpack_sequence(ps))
print(PackedSequence(ps.data, ps.batch_sizes).unsorted_indices)
print(ps.double().data.dtype, ps.to(torch.float64).sorted_indices, ps.float() is ps, ps.is_cuda, ps.cpu() is ps)
""",
    "pack_errors": """
x = pad_sequence([a, b, c], batch_first=True)
t(lambda: pack_padded_sequence(x, [1, 3, 2], batch_first=True))
t(lambda: pack_sequence([c, a]))
t(lambda: pack_padded_sequence(x, [3, 2, 0], batch_first=True))
t(lambda: pack_padded_sequence(x, [3, 2, -1], batch_first=True))
t(lambda: pack_padded_sequence(x, [3, 2], batch_first=True))
t(lambda: pack_padded_sequence(x, torch.tensor([[3, 2, 1]]), batch_first=True))
t(lambda: pack_padded_sequence(x, torch.tensor(3), batch_first=True))
t(lambda: pack_padded_sequence(torch.tensor([1., 2.]), [1, 1]))
t(lambda: pack_padded_sequence(torch.zeros(0, 2), [1, 1]))
t(lambda: pack_padded_sequence(x, [3.7, 2, 1], batch_first=True).batch_sizes)
t(lambda: pack_padded_sequence(x, torch.tensor([3., 2., 1.]), batch_first=True).batch_sizes)
t(lambda: pad_packed_sequence(pack_sequence([a, b]), total_length=2))
""",
    "rnn_layers_on_packed_input": """
seqs = [torch.randn(n, 3) for n in (2, 4, 3)]
for cls, kw in [(torch.nn.RNN, {}), (torch.nn.GRU, {'batch_first': True}), (torch.nn.LSTM, {}),
                (torch.nn.RNN, {'nonlinearity': 'relu', 'num_layers': 2, 'bidirectional': True}),
                (torch.nn.LSTM, {'num_layers': 2, 'bidirectional': True}),
                (torch.nn.LSTM, {'proj_size': 2, 'bidirectional': True}),
                (torch.nn.GRU, {'bidirectional': True}), (torch.nn.LSTM, {'dtype': torch.float64})]:
    torch.manual_seed(1)
    m = cls(3, 4, **kw)
    packed = pack_sequence([s.to(m.weight_hh_l0.dtype) for s in seqs], enforce_sorted=False)
    out, h = m(packed)
    print(cls.__name__, kw, type(out).__name__, out.batch_sizes, out.sorted_indices, out.unsorted_indices)
    print(out.data.round(decimals=4), out.data.grad_fn)
    print(h[0].round(decimals=4) if isinstance(h, tuple) else h.round(decimals=4))
    chain(out.data.grad_fn.next_functions[0][0])
    pad, lens = pad_packed_sequence(out, batch_first=True)
    (pad.sum() + (h[1].sum() if isinstance(h, tuple) else h.sum())).backward()
    print([round(p.grad.sum().item(), 3) for p in m.parameters()])
""",
    "rnn_packed_hidden_and_errors": """
seqs = [torch.randn(n, 3) for n in (2, 4, 3)]
torch.manual_seed(2)
gru = torch.nn.GRU(3, 4)
h0 = torch.randn(1, 3, 4, requires_grad=True)
out, h = gru(pack_sequence(seqs, enforce_sorted=False), h0)
print(h.round(decimals=4))
chain(h.grad_fn.next_functions[0][0])
h.sum().backward()
print(h0.grad.round(decimals=4))
lstm = torch.nn.LSTM(3, 4)
same = pack_sequence([torch.randn(2, 3), torch.randn(2, 3)])
o, (hy, cy) = lstm(same)
print(o.data.grad_fn, hy.grad_fn, o.data.round(decimals=4))
chain(o.data)
t(lambda: lstm(pack_sequence(seqs, enforce_sorted=False), (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4))))
t(lambda: gru(pack_sequence(seqs, enforce_sorted=False), torch.zeros(1, 2, 4)))
t(lambda: gru(pack_sequence(seqs), torch.zeros(1, 2, 4)))
t(lambda: gru(pack_sequence([torch.randn(2, 5)])))
t(lambda: gru(pack_sequence([torch.randn(2, 3, dtype=torch.float64)])))
t(lambda: torch.nn.RNN(3, 2)(pack_sequence([torch.randn(2, 3)]), torch.zeros(1, 2, 2)))
""",
    "parametrize": """
nn = torch.nn
P = torch.nn.utils.parametrize
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
class Scale(nn.Module):
    def __init__(self): super().__init__(); self.s = 2.0
    def forward(self, X): return X * self.s
    def right_inverse(self, X): return X / self.s
torch.manual_seed(0)
m = nn.Linear(3, 3)
print(P.is_parametrized(m), P.is_parametrized(m, 'weight'))
P.register_parametrization(m, 'weight', Sym())
print(m)
print(type(m).__name__, P.type_before_parametrizations(m).__name__, isinstance(m, nn.Linear))
print([n for n, _ in m.named_parameters()], list(m.state_dict()))
print(m.weight, m.parametrizations.weight.original)
print(P.is_parametrized(m), P.is_parametrized(m, 'weight'), P.is_parametrized(m, 'bias'))
y = m(torch.ones(2, 3)).sum(); y.backward()
print(m.parametrizations.weight.original.grad)
P.register_parametrization(m, 'weight', Scale())
print(m); print(m.weight)
try:
    m.weight = torch.eye(3)
except RuntimeError as e:
    print('RuntimeError', e)
print(m.parametrizations.weight.original)
with P.cached():
    print(m.weight is m.weight)
print(m.weight is m.weight)
P.remove_parametrizations(m, 'weight')
print(m, type(m).__name__, m.weight)
P.register_parametrization(m, 'bias', Scale())
P.remove_parametrizations(m, 'bias', leave_parametrized=False); print(m.bias)
for f in [lambda: P.register_parametrization(m, 'nope', Sym()), lambda: P.remove_parametrizations(m, 'weight'),
          lambda: P.register_parametrization(nn.Linear(2, 3), 'weight', Sym())]:
    try: f()
    except Exception as e: print(type(e).__name__, e)
""",
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_rnn_utils_match_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + PROGRAMS[name])


def test_submodule_imports() -> None:
    """`import torch.nn.utils.rnn as rnn_utils` and `from torch.nn.utils.rnn import ...` reach the engine's
    module when the engine is bound as torch (engine.nn.utils is a package, as torch.nn.utils is)."""
    import contextlib
    import io

    import engine
    from tests.engine.test_tutorial_snippets_vs_torch import _engine_as_torch

    code = ("import torch\nimport torch.nn.utils.rnn as rnn_utils\nfrom torch.nn.utils.rnn import pad_sequence\n"
            "from torch.nn.utils import rnn, clip_grad_norm_\n"
            "print(rnn_utils is rnn, pad_sequence is rnn.pad_sequence, torch.nn.utils.rnn is rnn)\n"
            "print(pad_sequence([torch.ones(2), torch.ones(1)]), callable(clip_grad_norm_))\n")
    out = io.StringIO()
    with _engine_as_torch(), contextlib.redirect_stdout(out):
        exec(code, {})  # noqa: S102 - the test's own program
        import torch.nn.utils.rnn as bound
    assert bound is engine.nn.utils.rnn
    assert out.getvalue() == "True True True\ntensor([[1., 1.],\n        [1., 0.]]) True\n"
