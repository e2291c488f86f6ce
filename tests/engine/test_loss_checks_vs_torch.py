"""Loss argument checks (target rank, shape and dtype, weights, loss modules' forward signature): small
programs run with torch and with the engine print the same (warnings included)."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN + """
F = torch.nn.functional
T = torch.tensor
fp = torch.tensor([[1.0, 2.0, 0.5], [0.5, 0.1, 0.2]], requires_grad=True)
lp = F.log_softmax(fp, 1)
x1 = T([1., 2., 3.])
w2 = T([1., 2.])
"""

SNIPPETS = {
    "nll_cross_entropy_bce_targets": """
for n, c in [
 ("ce N1", lambda: F.cross_entropy(fp, T([[1],[0]]))),
 ("ce 1x2", lambda: F.cross_entropy(fp, T([[1,0]]))),
 ("ce 0d target 2d in", lambda: F.cross_entropy(fp, T(1))),
 ("ce 1d in 0d t", lambda: F.cross_entropy(T([1.,2.,3.]), T(1))),
 ("ce 1d in 1d t", lambda: F.cross_entropy(T([1.,2.,3.]), T([1]))),
 ("ce 1d in 2d t", lambda: F.cross_entropy(T([1.,2.,3.]), T([[1]]))),
 ("ce float wrong shape", lambda: F.cross_entropy(fp, T([[1.,0.]]))),
 ("ce float 1d", lambda: F.cross_entropy(fp, T([1.,0.]))),
 ("ce float 2x2", lambda: F.cross_entropy(fp, T([[1.,0.],[0.,1.]]))),
 ("ce oob", lambda: F.cross_entropy(fp, T([5,0]))),
 ("ce neg", lambda: F.cross_entropy(fp, T([-1,0]))),
 ("ce int32", lambda: F.cross_entropy(fp, T([1,0], dtype=torch.int32))),
 ("ce uint8", lambda: F.cross_entropy(fp, T([1,0], dtype=torch.uint8))),
 ("ce bool", lambda: F.cross_entropy(fp, T([True,False]))),
 ("ce int16", lambda: F.cross_entropy(fp, T([1,0], dtype=torch.int16))),
 ("ce batch mismatch", lambda: F.cross_entropy(fp, T([1,0,1]))),
 ("ce long same shape", lambda: F.cross_entropy(fp, T([[1,0,0],[0,1,0]]))),
 ("ce double target prob", lambda: F.cross_entropy(fp, T([[1.,0,0],[0,1.,0]], dtype=torch.float64))),
 ("ce 3d in 2d t", lambda: F.cross_entropy(torch.zeros(2,3,4), T([[1,0,0,0],[0,1,0,0]]))),
 ("ce 3d in 1d t", lambda: F.cross_entropy(torch.zeros(2,3,4), T([1,0]))),
 ("ce 3d in 3d t", lambda: F.cross_entropy(torch.zeros(2,3,4), torch.zeros(2,4,1, dtype=torch.long))),
 ("ce 3d in wrong t", lambda: F.cross_entropy(torch.zeros(2,3,4), torch.zeros(2,5, dtype=torch.long))),
 ("ce 4d in 3d t wrong", lambda: F.cross_entropy(torch.zeros(2,3,4,4), torch.zeros(2,4,5, dtype=torch.long))),
 ("nll N1", lambda: F.nll_loss(lp, T([[1],[0]]))),
 ("nll float", lambda: F.nll_loss(lp, T([1.,0.]))),
 ("nll oob", lambda: F.nll_loss(lp, T([3,0]))),
 ("nll int32", lambda: F.nll_loss(lp, T([1,0], dtype=torch.int32))),
 ("nll 3d input", lambda: F.nll_loss(torch.zeros(2,3,4), T([1,0]))),
 ("nll 1d in 2d t", lambda: F.nll_loss(T([1.,2.,3.]), T([[1]]))),
 ("nll 0d in", lambda: F.nll_loss(T(1.), T(0))),
 ("nll batch mismatch", lambda: F.nll_loss(lp, T([1,0,1]))),
 ("nll weight wrong", lambda: F.nll_loss(lp, T([1,0]), weight=T([1.,2.]))),
 ("bce long", lambda: F.binary_cross_entropy(T([0.9,0.2]), T([1,0]))),
 ("bce int32", lambda: F.binary_cross_entropy(T([0.9,0.2]), T([1,0], dtype=torch.int32))),
 ("bce double", lambda: F.binary_cross_entropy(T([0.9,0.2]), T([1.,0.], dtype=torch.float64))),
 ("bce bool", lambda: F.binary_cross_entropy(T([0.9,0.2]), T([True,False]))),
 ("bce module long", lambda: torch.nn.BCELoss()(T([0.9,0.2]), T([1,0]))),
 ("bce shape", lambda: F.binary_cross_entropy(T([0.9,0.2]), T([[1.],[0.]]))),
 ("bce long shape", lambda: F.binary_cross_entropy(T([0.9,0.2]), T([[1],[0]]))),
 ("bce long input", lambda: F.binary_cross_entropy(T([1,0]), T([1.,0.]))),
 ("bce oob long", lambda: F.binary_cross_entropy(T([1.5,0.2]), T([1,0]))),
 ("bcel long", lambda: F.binary_cross_entropy_with_logits(T([0.9,0.2]), T([1,0]))),
 ("bcel int32", lambda: F.binary_cross_entropy_with_logits(T([0.9,0.2]), T([1,0],dtype=torch.int32))),
 ("bcel bool", lambda: F.binary_cross_entropy_with_logits(T([0.9,0.2]), T([True,False]))),
 ("bcel double", lambda: F.binary_cross_entropy_with_logits(T([0.9,0.2]), T([1.,0.],dtype=torch.float64))),
 ("bcel shape", lambda: F.binary_cross_entropy_with_logits(T([0.9,0.2]), T([[1.],[0.]]))),
 ("bcel module long", lambda: torch.nn.BCEWithLogitsLoss()(T([0.9,0.2], requires_grad=True), T([1,0]))),
 ("mse long", lambda: F.mse_loss(T([0.9,0.2], requires_grad=True), T([1,0]))),
 ("mse int32", lambda: F.mse_loss(T([0.9,0.2]), T([1,0],dtype=torch.int32))),
 ("mse double", lambda: F.mse_loss(T([0.9,0.2], requires_grad=True), T([1.,0.],dtype=torch.float64))),
 ("mse bool", lambda: F.mse_loss(T([0.9,0.2]), T([True,False]))),
 ("mse shape", lambda: F.mse_loss(T([0.9,0.2]), T([[1.],[0.]]))),
 ("mse long input", lambda: F.mse_loss(T([1,0]), T([1,0]))),
 ("mse long both float", lambda: F.mse_loss(T([1,0]), T([1.,0.]))),
 ("mse bad shape", lambda: F.mse_loss(T([0.9,0.2]), T([1.,0.,1.]))),
 ("l1 long", lambda: F.l1_loss(T([0.9,0.2], requires_grad=True), T([1,0]))),
 ("l1 double", lambda: F.l1_loss(T([0.9,0.2], requires_grad=True), T([1.,0.],dtype=torch.float64))),
 ("l1 shape", lambda: F.l1_loss(T([0.9,0.2]), T([[1.],[0.]]))),
 ("l1 long input", lambda: F.l1_loss(T([1,0]), T([1,0]))),
 ("l1 bool", lambda: F.l1_loss(T([0.9,0.2]), T([True,False]))),
 ("sl1 long", lambda: F.smooth_l1_loss(T([0.9,0.2], requires_grad=True), T([1,0]))),
 ("sl1 double", lambda: F.smooth_l1_loss(T([0.9,0.2], requires_grad=True), T([1.,0.],dtype=torch.float64))),
 ("sl1 long input", lambda: F.smooth_l1_loss(T([1,0]), T([1,0]))),
 ("hub long", lambda: F.huber_loss(T([0.9,0.2], requires_grad=True), T([1,0]))),
 ("hub double", lambda: F.huber_loss(T([0.9,0.2], requires_grad=True), T([1.,0.],dtype=torch.float64))),
 ("hub long input", lambda: F.huber_loss(T([1,0]), T([1,0]))),
 ("kl long", lambda: F.kl_div(T([-0.9,-0.2], requires_grad=True), T([1,0]), reduction="batchmean")),
 ("kl double", lambda:
    F.kl_div(T([-0.9,-0.2], requires_grad=True), T([1.,0.],dtype=torch.float64), reduction="batchmean")),
 ("kl shape", lambda: F.kl_div(T([-0.9,-0.2]), T([[1.],[0.]]), reduction="sum")),
 ("kl bad shape", lambda: F.kl_div(T([-0.9,-0.2]), T([1.,0.,1.]), reduction="sum")),
 ("mse module 3 args", lambda: torch.nn.MSELoss()(T([1.]), T([1.]), T([1.]))),
 ("ce module 3 args", lambda: torch.nn.CrossEntropyLoss()(fp, T([1,0]), T([1.]))),
]:
    run(n, c)
""",
    "loss_target_dtypes_and_shapes": """
fp = torch.zeros(2, 3)
for n, c in [
 ("nll 1d in 1d t2", lambda: F.nll_loss(x1, T([1,0]))),
 ("nll 1d in 1d t1", lambda: F.nll_loss(x1, T([1]))),
 ("nll 1d in 1d t3", lambda: F.nll_loss(x1, T([1,0,2]))),
 ("nll 1d in 1d t1 oob", lambda: F.nll_loss(x1, T([5]))),
 ("nll 1d in 0d oob", lambda: F.nll_loss(x1, T(5))),
 ("nll 1d in 0d float", lambda: F.nll_loss(x1, T(1.))),
 ("nll 2d 0d", lambda: F.nll_loss(fp, T(1))),
 ("nll 2d empty", lambda: F.nll_loss(torch.zeros(0,3), T([], dtype=torch.long))),
 ("nll 2d 2d float", lambda: F.nll_loss(fp, T([[1.],[0.]]))),
 ("nll 2d N1 oob", lambda: F.nll_loss(fp, T([[7],[0]]))),
 ("nll 4d float t", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2,2))),
 ("nll 4d 2d t", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2, dtype=torch.long))),
 ("nll 4d 4d t", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2,2,1, dtype=torch.long))),
 ("nll 4d oob", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.full((2,2,2), 4))),
 ("nll 4d weight", lambda:
    F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2,2, dtype=torch.long), weight=T([1.,2.]))),
 ("nll 3d oob", lambda: F.nll_loss(torch.zeros(2,3,4), torch.full((2,4), 4))),
 ("nll 3d float t", lambda: F.nll_loss(torch.zeros(2,3,4), torch.zeros(2,4))),
 ("nll 3d 2d wrong N", lambda: F.nll_loss(torch.zeros(2,3,4), torch.zeros(3,4, dtype=torch.long))),
 ("nll 5d wrong", lambda: F.nll_loss(torch.zeros(2,3,1,1,2), torch.zeros(2,1,1, dtype=torch.long))),
 ("nll 3d weight", lambda:
    F.nll_loss(torch.zeros(2,3,4), torch.zeros(2,4, dtype=torch.long), weight=T([1.,2.]))),
 ("nll 2d weight 2d", lambda: F.nll_loss(fp, T([1,0]), weight=torch.ones(1,3))),
 ("nll double target", lambda: F.nll_loss(fp, T([1.,0.], dtype=torch.float64))),
 ("nll ign oob", lambda: F.nll_loss(fp, T([1,-100]))),
 ("nll ign custom", lambda: F.nll_loss(fp, T([1,7]), ignore_index=7)),
 ("nll int input", lambda: F.nll_loss(torch.zeros(2,3, dtype=torch.long), T([1,0]))),
 ("nll double in float w", lambda:
    F.nll_loss(torch.zeros(2,3, dtype=torch.float64), T([1,0]), weight=torch.ones(3))),
 ("ce int input", lambda: F.cross_entropy(torch.zeros(2,3, dtype=torch.long), T([1,0]))),
 ("ce 0d input", lambda: F.cross_entropy(T(1.), T(0))),
 ("ce label smooth N1", lambda: F.cross_entropy(fp, T([[1],[0]]), label_smoothing=0.1)),
 ("ce label smooth oob", lambda: F.cross_entropy(fp, T([5,0]), label_smoothing=0.1)),
 ("ce label smooth float", lambda: F.cross_entropy(fp, T([1.,0.]), label_smoothing=0.1)),
 ("ce weight wrong", lambda: F.cross_entropy(fp, T([1,0]), weight=T([1.,2.]))),
 ("ce weight wrong ls", lambda: F.cross_entropy(fp, T([1,0]), weight=T([1.,2.]), label_smoothing=0.1)),
 ("ce prob weight wrong", lambda: F.cross_entropy(fp, torch.zeros(2,3), weight=T([1.,2.]))),
 ("bce weight wrong", lambda: F.binary_cross_entropy(T([0.5,0.5]), T([1.,0.]), weight=T([1.,2.,3.]))),
 ("bce double in float t", lambda: F.binary_cross_entropy(T([0.5,0.5],dtype=torch.float64), T([1.,0.]))),
 ("bce half", lambda: F.binary_cross_entropy(T([0.5,0.5]), T([1.,0.],dtype=torch.float16))),
 ("bcel long input", lambda: F.binary_cross_entropy_with_logits(T([1,0]), T([1.,0.]))),
 ("bcel weight", lambda: F.binary_cross_entropy_with_logits(T([1.,0.]), T([1.,0.]), weight=T([1.,2.,3.]))),
 ("bcel uint8", lambda: F.binary_cross_entropy_with_logits(T([0.9,0.2]), T([1,0],dtype=torch.uint8))),
 ("bcel long req", lambda:
    F.binary_cross_entropy_with_logits(T([0.9,0.2],requires_grad=True), T([1,0]), reduction='none')),
 ("bcel long pw", lambda: F.binary_cross_entropy_with_logits(T([0.9,0.2]), T([1,0]), pos_weight=T([2.]))),
 ("mse long req bw", lambda:
    (lambda x: (F.mse_loss(x, T([1,0])).backward(), x.grad))(T([0.9,0.2],requires_grad=True))),
 ("mse long sum", lambda: F.mse_loss(T([0.9,0.2]), T([1,0]), reduction='none')),
 ("mse double none", lambda: F.mse_loss(T([0.9,0.2]), T([1.,0.], dtype=torch.float64), reduction='none')),
 ("hub double none", lambda: F.huber_loss(T([0.9,0.2]), T([1.,0.], dtype=torch.float64), reduction='none')),
 ("hub double-in float-t", lambda:
    F.huber_loss(T([0.9,0.2], dtype=torch.float64), T([1.,0.]), reduction='none')),
 ("hub long t none", lambda: F.huber_loss(T([0.9,0.2]), T([1,0]), reduction='none')),
 ("sl1 double none", lambda:
    F.smooth_l1_loss(T([0.9,0.2]), T([1.,0.], dtype=torch.float64), reduction='none')),
 ("sl1 beta0 long", lambda: F.smooth_l1_loss(T([0.9,0.2]), T([1,0]), beta=0.0)),
 ("kl long input", lambda: F.kl_div(T([1,0]), T([1.,0.]), reduction="sum")),
 ("kl long both log", lambda: F.kl_div(T([-0.9,-0.2]), T([1,0]), reduction="sum", log_target=True)),
 ("kl int32", lambda: F.kl_div(T([-0.9,-0.2]), T([1,0], dtype=torch.int32), reduction="sum")),
 ("kl bool", lambda: F.kl_div(T([-0.9,-0.2]), T([True,False]), reduction="sum")),
 ("kl mean long", lambda: F.kl_div(T([-0.9,-0.2]), T([1,0]))),
 ("l1 int32", lambda: F.l1_loss(T([0.9,0.2]), T([1,0], dtype=torch.int32))),
 ("l1 long none", lambda: F.l1_loss(T([0.9,0.2]), T([1,0]), reduction='none')),
 ("mse int input float t none", lambda: F.mse_loss(T([1,0]), T([1.,0.]), reduction='none')),
]:
    run(n, c)
""",
    "loss_check_order_and_forward_signature": """
fp = torch.zeros(2, 3)
for n, c in [
 ("1d in (2,1) t", lambda: F.nll_loss(x1, T([[1],[0]]))),
 ("1d in float (2,)", lambda: F.nll_loss(x1, T([1.,0.]))),
 ("1d in (2,) w wrong", lambda: F.nll_loss(x1, T([1,0]), weight=T([1.,2.]))),
 ("1d in (1,) w wrong", lambda: F.nll_loss(x1, T([1]), weight=T([1.,2.]))),
 ("1d in (1,) w ok", lambda: F.nll_loss(x1, T([1]), weight=T([1.,2.,3.]), reduction='none')),
 ("1d in 0d none", lambda: F.nll_loss(x1, T(1), reduction='none')),
 ("1d in (1,) none", lambda: F.nll_loss(x1, T([1]), reduction='none')),
 ("2d (2,1) float batch mismatch", lambda: F.nll_loss(fp, T([[1.]]))),
 ("2d w wrong float t", lambda: F.nll_loss(fp, T([1.,0.]), weight=T([1.,2.]))),
 ("2d w wrong oob", lambda: F.nll_loss(fp, T([5,0]), weight=T([1.,2.]))),
 ("4d float 2d t", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2))),
 ("4d float t wrong size", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2,3))),
 ("4d t wrong size", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2,3,dtype=torch.long))),
 ("4d t batch", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(3,2,2,dtype=torch.long))),
 ("3d float t wrong", lambda: F.nll_loss(torch.zeros(2,3,4), torch.zeros(2,5))),
 ("3d empty", lambda: F.nll_loss(torch.zeros(0,3,4), torch.zeros(0,4,dtype=torch.long))),
 ("3d 0d t", lambda: F.nll_loss(torch.zeros(2,3,4), T(1))),
 ("ce 3d int32 t", lambda: F.cross_entropy(torch.zeros(2,3,4), torch.zeros(2,4,dtype=torch.int32))),
 ("ls >1", lambda: F.cross_entropy(fp, T([1,0]), label_smoothing=1.5)),
 ("ls <0", lambda: F.cross_entropy(fp, T([1,0]), label_smoothing=-0.5)),
 ("prob ign", lambda: F.cross_entropy(fp, torch.zeros(2,3), ignore_index=1)),
 ("ce neg ign ok", lambda: F.cross_entropy(fp, T([1,-5]), ignore_index=-5)),
 ("bcew weight", lambda: F.binary_cross_entropy(T([0.5,0.5]), T([1.,0.]), weight=T([[1.,2.],[1.,1.]]))),
 ("bce long weight wrong", lambda: F.binary_cross_entropy(T([0.5,0.5]), T([1,0]), weight=T([1.,2.,3.]))),
 ("mse kw", lambda: torch.nn.MSELoss()(T([1.]))),
 ("mse kw2", lambda: torch.nn.MSELoss()()),
 ("mse kw3", lambda: torch.nn.MSELoss()(T([1.]), T([1.]), foo=1)),
 ("mse kw4", lambda: torch.nn.MSELoss()(input=T([1.]), target=T([1.]))),
 ("mse kw5", lambda: torch.nn.MSELoss()(T([1.]), input=T([1.]))),
 ("mrl", lambda: torch.nn.MarginRankingLoss()(T([1.]), T([1.]), T([1.]), T([1.]))),
 ("mrl2", lambda: torch.nn.MarginRankingLoss()(T([1.]), T([1.]))),
 ("gnll", lambda: torch.nn.GaussianNLLLoss()(T([1.]), T([1.]))),
 ("trip", lambda: torch.nn.TripletMarginLoss()(T([[1.]]), T([[1.]]))),
 ("cos", lambda: torch.nn.CosineEmbeddingLoss()(T([[1.]]), T([[1.]]))),
 ("ce 4 args", lambda: torch.nn.CrossEntropyLoss()(fp, T([1,0]), 1, 2)),
]:
    run(n, c)
""",
    "nll_spatial_weight_checks": """
fp = torch.zeros(2, 3)
for n, c in [
 ("4d float t + w", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2,2), weight=w2)),
 ("4d size + w", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2,3,dtype=torch.long), weight=w2)),
 ("4d oob + w", lambda: F.nll_loss(torch.zeros(2,3,2,2), torch.full((2,2,2),5), weight=w2)),
 ("3d float t + w", lambda: F.nll_loss(torch.zeros(2,3,4), torch.zeros(2,4), weight=w2)),
 ("2d oob + w2d", lambda: F.nll_loss(torch.zeros(2,3), T([1,0]), weight=torch.ones(3,1))),
 ("4d w 2d", lambda:
    F.nll_loss(torch.zeros(2,3,2,2), torch.zeros(2,2,2,dtype=torch.long), weight=torch.ones(3,1))),
 ("nll w double", lambda: F.nll_loss(torch.zeros(2,3), T([1,0]), weight=torch.ones(3, dtype=torch.float64))),
 ("4d empty", lambda: F.nll_loss(torch.zeros(0,3,2,2), torch.zeros(0,2,2,dtype=torch.long))),
 ("2d empty sum", lambda: F.nll_loss(torch.zeros(0,3), torch.zeros(0,dtype=torch.long), reduction='sum')),
]:
    run(n, c)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])
