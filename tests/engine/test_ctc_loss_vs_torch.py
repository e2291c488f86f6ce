"""F.ctc_loss and nn.CTCLoss: losses for each reduction and zero_infinity, the graph (CtcLossBackward0, the
reduction's nodes), saved attributes, gradients, the NotImplemented double backward and errors compared with
PyTorch."""

from __future__ import annotations

import pytest

from tests.engine.programs import CHAIN, TRY, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = CHAIN + TRY + """
F = torch.nn.functional
"""

PROGRAM = """torch.manual_seed(0)
lp = torch.randn(6, 2, 4, dtype=torch.float64).log_softmax(2).detach().requires_grad_()
tg = torch.randint(1, 4, (2, 3), dtype=torch.long)
il = torch.full((2,), 6, dtype=torch.long); tl = torch.tensor([3, 2])
for red in ['mean', 'sum', 'none']:
    for zi in (False, True):
        l = F.ctc_loss(lp, tg, il, tl, reduction=red, zero_infinity=zi)
        print(red, zi, l)
        chain(l)
        (l * torch.arange(1., 1 + l.numel()).view(l.shape)).sum().backward(); print(lp.grad); lp.grad = None
fn = F.ctc_loss(lp, tg, il, tl, reduction='none').grad_fn
print(fn._saved_blank, fn._saved_zero_infinity, fn._saved_input_lengths, fn._saved_target_lengths, fn._saved_result0, fn._saved_targets, fn._saved_result1[0, :, :7])
print(F.ctc_loss(lp, tg.flatten()[:5], il, tl, reduction='none'))
print(F.ctc_loss(lp, tg, [6, 4], [3, 2], reduction='none'), F.ctc_loss(lp, tg, (6, 4), (3, 2), reduction='none').grad_fn)
l = F.ctc_loss(lp, tg, [6, 4], [3, 2], reduction='sum'); l.backward(); print(lp.grad); lp.grad = None
l = F.ctc_loss(lp[:, 0], tg[0], torch.tensor(6), torch.tensor(3), reduction='none'); print(l); chain(l)
print(F.ctc_loss(lp[:, 0], tg[0], torch.tensor(6), torch.tensor(3)))
print(F.ctc_loss(lp, torch.tensor([[1, 1, 1], [1, 2, 3]]), torch.tensor([2, 6]), tl, reduction='none'))
l = F.ctc_loss(lp, torch.tensor([[1, 1, 1], [1, 2, 3]]), torch.tensor([2, 6]), tl, reduction='none', zero_infinity=True); print(l)
l.sum().backward(); print(lp.grad); lp.grad = None
print(F.ctc_loss(lp, tg, il, torch.tensor([0, 2]), reduction='none'))
print(F.ctc_loss(lp.float(), tg.float(), il, tl))
g = torch.autograd.grad(F.ctc_loss(lp, tg, il, tl), lp, create_graph=True)[0]; print(g.grad_fn)
t(lambda: g.sum().backward())
m = torch.nn.CTCLoss(blank=3, zero_infinity=True); print(m, m.blank, m.reduction, m.zero_infinity)
print(m(lp, torch.randint(0, 3, (2, 3)), il, tl))
x = torch.randn(5, 3, 6, requires_grad=True)
print(F.ctc_loss(lp.float(), tg, il, tl, reduction="none"))
l = F.ctc_loss(x.log_softmax(2), torch.tensor([[1, 2, 2], [3, 4, 5], [5, 1, 0]]), [5, 5, 4], [3, 2, 1]); print(l)
l.backward(); print(x.grad.round(decimals=3))
t(lambda: F.ctc_loss(lp, tg, torch.tensor([7, 6]), tl))
t(lambda: F.ctc_loss(lp, tg, il, torch.tensor([4, 2])))
t(lambda: F.ctc_loss(lp, tg, il, torch.tensor([3])))
t(lambda: F.ctc_loss(lp, tg, torch.tensor([6]), tl))
t(lambda: F.ctc_loss(lp, tg, il, tl, blank=4))
t(lambda: F.ctc_loss(lp, tg, il.float(), tl))
t(lambda: F.ctc_loss(lp, tg, il, tl, reduction='x'))
"""


def test_ctc_loss_matches_torch() -> None:
    assert_matches_torch(PRELUDE + PROGRAM)
