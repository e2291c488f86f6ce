"""Gaps found by tutorial code (cumulative_trapezoid, dtype.is_signed, RNN flatten_parameters); programs run with
torch and with the engine print the same."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, WALK, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN + WALK

SNIPPETS = {
    "cumulative_trapezoid_values_graphs_and_errors": """
y = torch.tensor([0., 1., 4., 9.], requires_grad=True)
x = torch.tensor([0., 1., 3., 6.], requires_grad=True)
r = torch.cumulative_trapezoid(y, x=x)
print(r)
walk(r.grad_fn)
r.sum().backward()
print(y.grad, x.grad)
r = torch.cumulative_trapezoid(y, dx=3)
print(r)
walk(r.grad_fn)
print(torch.cumulative_trapezoid(torch.ones(2, 3), x=torch.tensor([[0., 1., 3.], [0, 2, 4]]), dim=1))
print(torch.cumulative_trapezoid(torch.arange(6.).view(2, 3), torch.tensor([0., 2.]), dim=0))
print(torch.cumulative_trapezoid(torch.tensor([1, 2, 3])), torch.cumulative_trapezoid(torch.tensor([1, 2, 3]), dx=2))
print(torch.cumulative_trapezoid(torch.zeros(2, 0)), torch.cumulative_trapezoid(torch.ones(2, 3), dim=0))
print(torch.cumulative_trapezoid(torch.tensor([1., 2., 3.], dtype=torch.float64), dx=0.5))
run("bad x", lambda: torch.cumulative_trapezoid(y, torch.tensor([0., 1.])))
run("float x", lambda: torch.cumulative_trapezoid(y, 2.0))
run("x and dx", lambda: torch.cumulative_trapezoid(y, x=x, dx=2))
""",
    "dtype_is_signed": """
for d in [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]:
    print(d, d.is_signed, d.is_floating_point, d.is_complex, d.itemsize)
""",
    "rnn_flatten_parameters_is_a_no_op": """
torch.manual_seed(0)
for cls in [torch.nn.RNN, torch.nn.GRU, torch.nn.LSTM]:
    m = cls(2, 3, num_layers=2)
    print(m.flatten_parameters(), len(m.all_weights), [len(w) for w in m.all_weights])
    out, _ = m(torch.ones(4, 1, 2))
    print(out[-1].round(decimals=4))
""",
    "integer_sums_products_and_scans_keep_pytorch_dtypes": """
u = torch.tensor([200, 100], dtype=torch.uint8)
m = torch.tensor([[200, 100], [1, 2]], dtype=torch.uint8)
for c in ["u.sum()", "u.prod()", "u.cumsum(0)", "u.cumprod(0)", "torch.tensor([100, 100], dtype=torch.int8).cumsum(0)",
          "torch.tensor([True, True]).cumprod(0)", "u.cumsum(0, dtype=torch.uint8)", "u.sum(dtype=torch.uint8)",
          "u.prod(dtype=torch.uint8)", "u.cumprod(0, dtype=torch.uint8)", "torch.tensor([1, 2], dtype=torch.int16).cumsum(0)",
          "u.nansum()", "m.trace()", "m.prod(1)", "m.prod(0, keepdim=True)", "torch.tensor([True, False]).prod()",
          "torch.tensor([3, 4], dtype=torch.int8).prod()", "torch.tensor([3, 4], dtype=torch.int32).prod(0)",
          "m.sum(1, dtype=torch.uint8)", "torch.cumsum(m, 1, dtype=torch.int16)", "m.float().prod(1, dtype=torch.uint8)",
          "m.sum(0)", "m.cumsum(0)", "torch.tensor([[1, 2]], dtype=torch.int32).trace()", "torch.tensor(7, dtype=torch.uint8).cumsum(0)",
          "torch.tensor([100, 100], dtype=torch.int8).sum(dtype=torch.int8)", "torch.tensor([2., 3.]).cumprod(0, dtype=torch.int32)"]:
    run(c, lambda: eval(c))
""",
    "unique_keeps_each_nan": """
n = float("nan")
x = torch.tensor([2.0, n, 1.0, n, 2.0, n])
print(torch.unique(x, return_inverse=True, return_counts=True))
print(torch.unique(torch.tensor([n, 1, n, 0]), return_inverse=True))
print(torch.unique(torch.tensor([[n, 1], [n, 0]], dtype=torch.float64), sorted=False, return_inverse=True,
                   return_counts=True))
print(x.unique(), torch.tensor([1.0, 1.0]).unique(return_inverse=True), torch.unique_consecutive(torch.tensor([n, n, 1.0])))
""",
    "diff_of_bool_tensors_is_logical_xor": """
b = torch.tensor([True, False, False, True])
print(torch.diff(b), torch.diff(b, n=2), torch.diff(b, prepend=torch.tensor([False])))
print(torch.diff(torch.tensor([1, 2]), prepend=torch.tensor([True])), torch.diff(b, prepend=torch.tensor([1])))
print(torch.diff(torch.tensor([[True, False], [True, True]]), dim=0), b.diff(n=0))
""",
    "sequential_and_module_list_editing": """
torch.manual_seed(0)
s = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
run("insert", lambda: s.insert(1, torch.nn.Tanh()))
run("insert_neg", lambda: s.insert(-1, torch.nn.Dropout(0.1)))
run("insert_bad", lambda: s.insert(9, torch.nn.Tanh()))
run("insert_nonmodule", lambda: s.insert(0, 3))
run("extend", lambda: s.extend([torch.nn.Sigmoid()]))
run("setitem", lambda: (s.__setitem__(-1, torch.nn.Softplus()), s)[1])
run("setitem_bad", lambda: s.__setitem__(10, torch.nn.ReLU()))
run("delitem", lambda: (s.__delitem__(1), s)[1])
run("delitem_slice", lambda: (s.__delitem__(slice(0, 2)), s, [n for n, _ in s.named_parameters()])[1:])
run("pop", lambda: (s.pop(0), s))
run("len", lambda: len(s))
run("forward", lambda: torch.nn.Sequential(torch.nn.Linear(2, 2)).extend(torch.nn.Sequential(torch.nn.ReLU()))(torch.ones(1, 2)).shape)
ml = torch.nn.ModuleList([torch.nn.Linear(1, 1), torch.nn.ReLU()])
run("ml_insert", lambda: (ml.insert(0, torch.nn.Tanh()), ml)[1])
run("ml_setitem", lambda: (ml.__setitem__(1, torch.nn.GELU()), ml)[1])
run("ml_del", lambda: (ml.__delitem__(-1), ml)[1])
run("ml_pop", lambda: (ml.pop(0), ml)[1])
run("ml_iadd", lambda: (ml.__iadd__([torch.nn.ReLU()]), ml)[1])
run("ml_add", lambda: ml + torch.nn.ModuleList([torch.nn.Tanh()]))
run("ml_del_slice", lambda: (ml.__delitem__(slice(None, None, 2)), ml)[1])
""",
    "named_modules_remove_duplicate": """
r = torch.nn.ReLU()
run("nm_dup", lambda: [n for n, _ in torch.nn.Sequential(r, r).named_modules(remove_duplicate=False)])
run("nm", lambda: [n for n, _ in torch.nn.Sequential(r, torch.nn.Sequential(r)).named_modules()])
run("nm_prefix", lambda: [n for n, _ in torch.nn.Sequential(r, torch.nn.Sequential(r)).named_modules(prefix='net', remove_duplicate=False)])
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name], show_warnings=False)
