"""Training loops, optimizers, schedulers and module state run with torch and with the engine: same output."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

import engine
import engine.optim.lr_scheduler
from conftest import torch
from tests.engine.test_snippets_vs_torch import _run

import torch.optim.lr_scheduler  # noqa: E402,F401 - loaded before the import test swaps sys.modules


OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "betas": (0.8, 0.9)}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "foreach": False}),
    ("AdamW", {}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True, "weight_decay": 0.1, "alpha": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "maximize": True}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.1}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.01, "betas": (0.9, 0.99)}),  # rectified from step 7 on
    ("RAdam", {"lr": 0.01, "betas": (0.5, 0.6), "weight_decay": 0.1}),  # never rectified
    ("RAdam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (0.01, 0.1), "maximize": True}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
]
# A tensor learning rate makes torch round some scalar arithmetic in float32
TENSOR_LR = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop",
             "ASGD"]


def _arrays(t) -> np.ndarray:
    return t.detach().numpy().copy() if isinstance(t, torch.Tensor) else t._data.copy()


def _train_on_fixed_gradients(T, name: str, kwargs: dict, tensor_lr: bool = False) -> tuple:
    """Eight steps on three parameters (a matrix, a vector, a scalar) fed the same random gradients."""
    rng = np.random.RandomState(0)
    shapes = [(37, 5), (5,), ()]
    start = [np.asarray(rng.randn(*s), np.float32) for s in shapes]
    grads = [[np.asarray(rng.randn(*s), np.float32) for s in shapes] for _ in range(8)]
    params = [T.tensor(a.copy(), requires_grad=True) for a in start]
    if tensor_lr:
        kwargs = {**kwargs, "lr": T.tensor(0.0123)}
    opt = getattr(T.optim, name)(params, **kwargs)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = T.tensor(g.copy())
        opt.step()
    state = [(key, value) for p in params for key, value in opt.state[p].items()]
    return params, state, [p._version for p in params]


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS)
def test_same_gradients_give_the_same_parameters_and_state(name: str, kwargs: dict) -> None:
    """Fed identical gradients, every update agrees to float32 rounding (torch's square roots come from MKL
    and are not always correctly rounded, so a few elements may differ in their last bits); parameters print
    the same, and every in-place update is counted in the versions as in torch."""
    t_params, t_state, t_versions = _train_on_fixed_gradients(torch, name, kwargs)
    e_params, e_state, e_versions = _train_on_fixed_gradients(engine, name, kwargs)
    assert e_versions == t_versions
    for tp, ep in zip(t_params, e_params):
        np.testing.assert_allclose(_arrays(ep), _arrays(tp), rtol=2e-6, atol=1e-8)
        assert repr(ep) == repr(tp)
    assert [k for k, _ in e_state] == [k for k, _ in t_state]
    for (key, tv), (_, ev) in zip(t_state, e_state):
        assert repr(ev.dtype) == repr(tv.dtype), key
        assert ev._version == tv._version, key
        # momentum buffers sum terms that cancel: a last-bit difference in a root shows more there
        np.testing.assert_allclose(_arrays(ev), _arrays(tv), rtol=2e-6, atol=1e-6)


def _torch_sqrt(x: np.ndarray) -> np.ndarray:
    return torch.from_numpy(np.ascontiguousarray(x)).sqrt().numpy()


@pytest.mark.parametrize("name,kwargs,tensor_lr", [(name, kwargs, False) for name, kwargs in OPTIMIZERS]
                         + [(name, {}, True) for name in TENSOR_LR])
def test_updates_are_bit_identical_given_torch_square_roots(name: str, kwargs: dict, tensor_lr: bool,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """With torch's own square roots in place of correctly rounded ones, every parameter and state element is
    bit for bit torch's: each update follows torch's single-tensor CPU path operation by operation."""
    import engine.optim.kernels

    monkeypatch.setattr(engine.optim.kernels, "sqrt", _torch_sqrt)
    t_params, t_state, _ = _train_on_fixed_gradients(torch, name, kwargs, tensor_lr)
    e_params, e_state, _ = _train_on_fixed_gradients(engine, name, kwargs, tensor_lr)
    for tp, ep in zip(t_params, e_params):
        np.testing.assert_array_equal(_arrays(ep), _arrays(tp))
    for (key, tv), (_, ev) in zip(t_state, e_state):
        np.testing.assert_array_equal(_arrays(ev), _arrays(tv), err_msg=key)


SNIPPETS = {
    "optimizer_reprs_and_state_dicts": """
torch.manual_seed(0)
m = torch.nn.Linear(3, 2)
for cls in [torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop, torch.optim.Adagrad]:
    opt = cls(m.parameters(), lr=0.01)
    print(opt)
    print(opt.state_dict())
    print(opt.defaults)
print(torch.optim.AdamW(m.parameters()))
opt = torch.optim.Adam(m.parameters(), lr=0.01)
x = torch.randn(4, 3)
m(x).sum().backward()
opt.step()
sd = opt.state_dict()
print(sd)
print(sd["state"][0]["step"], sd["state"][0]["step"].dtype)
print(type(sd["state"]).__name__, type(sd["param_groups"]).__name__, type(opt.state).__name__)
print(sd["state"][0]["exp_avg"] is opt.state[m.weight]["exp_avg"])
print(sd["param_groups"][0] is opt.param_groups[0])
torch.manual_seed(0)
m2 = torch.nn.Linear(3, 2)
opt2 = torch.optim.Adam(m2.parameters(), lr=0.5)
opt2.load_state_dict(sd)
print(opt2.param_groups[0]["lr"], opt2.state_dict())
print(opt2.state[m2.weight]["exp_avg"] is opt.state[m.weight]["exp_avg"])
print(opt2.param_groups[0]["params"][0] is m2.weight)
m2(x).sum().backward()
opt2.step()
print(opt2.state[m2.weight]["step"], opt.state[m.weight]["step"], m2.weight)
for make in (lambda: torch.optim.Adam([m.weight]),
             lambda: torch.optim.Adam([{"params": [m.weight]}, {"params": [m.bias]}])):
    try:
        make().load_state_dict(sd)
    except ValueError as e:
        print("ValueError:", e)
s = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
m(x).sum().backward()
s.step()
print(s.state_dict())
""",
    "param_groups_and_errors": """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
opt = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 1e-3}],
                      lr=1e-2, momentum=0.9)
print(opt)
x = torch.randn(5, 2)
for epoch in range(3):
    opt.zero_grad()
    out = model(x).pow(2).mean()
    out.backward()
    opt.step()
    for g in opt.param_groups:
        g["lr"] *= 0.5
    print(epoch, round(out.item(), 4), [g["lr"] for g in opt.param_groups])
print(model[2].weight)
opt2 = torch.optim.Adam([model[0].weight], lr=0.1)
opt2.add_param_group({"params": model[0].bias, "lr": 0.2})
print(opt2)
g = {"params": [model[2].bias]}
opt3 = torch.optim.SGD([model[2].weight], lr=0.1)
opt3.add_param_group(g)
print(g is opt3.param_groups[1], sorted(g))
attempts = [
    lambda: opt2.add_param_group({"params": [model[0].weight]}),
    lambda: opt2.add_param_group({"params": {model[2].weight}}),
    lambda: torch.optim.SGD([], lr=0.1),
    lambda: torch.optim.SGD(model[0].weight, lr=0.1),
    lambda: torch.optim.SGD([model[0].weight * 2], lr=0.1),
    lambda: torch.optim.SGD([1.0], lr=0.1),
    lambda: torch.optim.Adam(model.parameters(), lr=-1),
    lambda: torch.optim.Adam(model.parameters(), betas=(1.0, 0.9)),
    lambda: torch.optim.AdamW(model.parameters(), eps=-1.0),
    lambda: torch.optim.SGD(model.parameters(), lr=0.1, nesterov=True),
    lambda: torch.optim.SGD(model.parameters(), lr=0.1, momentum=-0.5),
    lambda: torch.optim.RMSprop(model.parameters(), alpha=-1),
    lambda: torch.optim.Adagrad(model.parameters(), lr_decay=-1),
]
for attempt in attempts:
    try:
        attempt()
    except (TypeError, ValueError) as e:
        print(type(e).__name__ + ":", e)
""",
    "zero_grad_and_closures": """
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3)
model(x).sum().backward()
opt.zero_grad()
print(model.weight.grad, model.bias.grad)
model(x).sum().backward()
g = model.weight.grad
v = g._version
opt.zero_grad(set_to_none=False)
print(model.weight.grad, model.weight.grad is g, g._version - v)
model(x).sum().backward()
model.zero_grad()
print(model.weight.grad)
model(x).sum().backward()
model.zero_grad(set_to_none=False)
print(model.weight.grad, model.bias.grad)
w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.Adam([w], lr=0.1)
opt.step()
print(w, opt.state[w], len(opt.state))
print(opt.step(lambda: 3.5))
def closure():
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    return loss
for _ in range(3):
    print(opt.step(closure))
print(w)
calls = []
h = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
opt.step(closure)
h.remove()
opt.step(closure)
print(calls)
""",
    "schedulers": """
w = torch.tensor([1.0, -2.0], requires_grad=True)
S = torch.optim.lr_scheduler
cases = [(S.StepLR, dict(step_size=2, gamma=0.5)), (S.MultiStepLR, dict(milestones=[2, 4, 4], gamma=0.1)),
         (S.ExponentialLR, dict(gamma=0.9)), (S.LambdaLR, dict(lr_lambda=lambda e: 0.95 ** e)),
         (S.CosineAnnealingLR, dict(T_max=5, eta_min=0.001)),
         (S.LinearLR, dict(start_factor=0.25, total_iters=3)),
         (S.ConstantLR, dict(factor=0.5, total_iters=2)), (S.PolynomialLR, dict(total_iters=4, power=2.0)),
         (S.MultiplicativeLR, dict(lr_lambda=lambda e: 0.9)),
         (S.CosineAnnealingWarmRestarts, dict(T_0=3, T_mult=2)),
         (S.OneCycleLR, dict(max_lr=1.0, total_steps=10)),
         (S.CyclicLR, dict(base_lr=0.01, max_lr=0.1, step_size_up=2))]
for cls, kw in cases:
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    s = cls(opt, **kw)
    print(cls.__name__, s.get_last_lr(), opt.param_groups[0]["lr"], s.last_epoch)
    lrs = []
    for epoch in range(8):
        opt.zero_grad()
        (w ** 2).sum().backward()
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    print([round(v, 8) for v in lrs], opt.param_groups[0].get("initial_lr"), opt.param_groups[0]["momentum"])
    print(sorted(s.state_dict()), w)
opt = torch.optim.SGD([w], lr=0.1)
s = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
for v in [1.0, 0.9, 0.95, 0.97, 0.99, 0.5, 0.6, 0.7, 0.8]:
    s.step(v)
    print(s.get_last_lr(), s.num_bad_epochs, s.best)
print(sorted(s.state_dict()), isinstance(s, S.LRScheduler))
opt = torch.optim.Adam([w], lr=0.1)
chain = S.ChainedScheduler([S.ExponentialLR(opt, gamma=0.9), S.StepLR(opt, step_size=2, gamma=0.5)])
for _ in range(4):
    opt.step()
    chain.step()
    print(chain.get_last_lr())
opt = torch.optim.SGD([w], lr=0.1)
seq = S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.5)],
                     milestones=[2])
for _ in range(5):
    opt.step()
    seq.step()
    print(seq.get_last_lr())
opt = torch.optim.Adam([w], lr=0.1)
s = S.OneCycleLR(opt, max_lr=0.5, epochs=2, steps_per_epoch=3, anneal_strategy="linear")
for _ in range(6):
    opt.step()
    s.step()
    print([round(v, 6) for v in s.get_last_lr()], opt.param_groups[0]["betas"])
""",
    "scheduler_warnings_and_state": """
import warnings
w = torch.tensor([1.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    s = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    s.step()
    print(s.get_last_lr(), opt.param_groups[0]["lr"])
    s.step()
    print(s.get_last_lr(), hasattr(opt.step, "_wrapped_by_lr_sched"), getattr(opt, "_opt_called", None))
    opt.step()
    print(getattr(opt, "_opt_called", None), s.get_lr())
    s.step(5)
    print(s.get_last_lr(), s.last_epoch)
    opt2 = torch.optim.SGD([w], lr=1.0)
    s2 = torch.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.5)
    opt2.step()
    s2.step()
print([str(c.message) for c in caught], [c.category.__name__ for c in caught])
sd = s.state_dict()
print(sd)
s3 = torch.optim.lr_scheduler.StepLR(torch.optim.SGD([w], lr=1.0), step_size=3)
s3.load_state_dict(sd)
print(s3.step_size, s3.last_epoch)
for attempt in (lambda: torch.optim.lr_scheduler.StepLR("x", 1),
                lambda: torch.optim.lr_scheduler.StepLR(torch.optim.SGD([w], lr=1.0), 1, last_epoch=3)):
    try:
        attempt()
    except (TypeError, KeyError) as e:
        print(type(e).__name__ + ":", e)
""",
    "inplace_activation_modules": """
nn = torch.nn
for mod in [nn.ReLU(inplace=True), nn.ReLU(True), nn.ReLU6(inplace=True), nn.SiLU(inplace=True),
            nn.Hardtanh(-0.5, 0.5, inplace=True), nn.ReLU(), nn.Dropout(0.5, inplace=True)]:
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    h = x * 2
    v0 = h._version
    mod.eval()
    r = mod(h)
    print(mod, r is h, h._version - v0, type(r.grad_fn).__name__, r)
    r.sum().backward()
    print(x.grad)
try:
    nn.ReLU(inplace=True)(torch.tensor([-1.0, 0.5], requires_grad=True))
except RuntimeError as e:
    print("RuntimeError:", e)
x = torch.tensor([-1.0, 0.5], requires_grad=True)
s = x.sigmoid()
nn.ReLU(inplace=True)(s)
try:
    s.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(inplace=True), nn.Linear(4, 1))
print(model)
out = model(torch.randn(3, 2))
out.sum().backward()
print(out, model[0].weight.grad)
""",
    "module_state": """
nn = torch.nn
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.stack = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 3))
        self.skip = nn.Identity()
        self.heads = nn.ModuleList([nn.Linear(3, 2) for _ in range(2)])
        self.named = nn.ModuleDict({"a": nn.Tanh(), "b": nn.Sigmoid()})
    def forward(self, x):
        logits = self.skip(self.stack(self.flatten(x)))
        return [self.named["a"](h(logits)) for h in self.heads]
model = Net()
print(model)
for name, p in model.named_parameters():
    print(name, p.shape, p.requires_grad)
print(list(model.state_dict().keys()), model.state_dict()["heads.1.bias"])
print(sum(p.numel() for p in model.parameters()), model.training, model.stack[2].training)
model.eval()
print(model.training, model.stack[2].training)
x = torch.randn(2, 4, 4)
out1, out2 = model(x)[0], model(x)[0]
print(torch.equal(out1, out2), out1)
model.train()
model.stack.requires_grad_(False)
print([n for n, p in model.named_parameters() if p.requires_grad])
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
sum(o.sum() for o in model(x)).backward()
print(model.stack[0].weight.grad, model.heads[0].weight.grad is not None)
opt.step()
print(model.heads[0].weight, len(model.heads), list(model.named.keys()))
print(nn.Flatten(0), nn.Identity(), nn.Dropout(), nn.Dropout(p=0.1, inplace=True))
print(nn.Flatten()(torch.ones(2, 3, 4)).shape)
print(model.state_dict()["heads.0.weight"].requires_grad, type(model.state_dict()).__name__)
lin = nn.Linear(3, 2)
nn.init.xavier_uniform_(lin.weight)
nn.init.zeros_(lin.bias)
print(lin.weight, lin.bias)
nn.init.kaiming_normal_(lin.weight, mode="fan_out", nonlinearity="relu")
nn.init.constant_(lin.bias, 0.5)
print(lin.weight, lin.bias)
def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.uniform_(m.weight, -0.1, 0.1)
        m.bias.data.fill_(0.01)
net = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1)).apply(init_weights)
print(net[0].weight, net[2].bias)
emb = nn.Embedding(10, 3)
print(emb, emb.weight.shape)
e = emb(torch.tensor([[1, 2], [4, 9]]))
print(e.shape, e.detach())
e.sum().backward()
print(emb.weight.grad)
print(nn.Embedding(5, 2, padding_idx=-1), nn.Embedding(5, 2, padding_idx=0).weight[0])
print(nn.Embedding.from_pretrained(torch.ones(2, 3)).weight.requires_grad)
""",
    "tutorial_training_loop": """
nn = torch.nn
torch.manual_seed(42)
X = torch.randn(64, 10)
y = (X.sum(dim=1) > 0).long()
model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 2))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
for epoch in range(5):
    model.train()
    for batch in range(4):
        xb, yb = X[batch * 16:(batch + 1) * 16], y[batch * 16:(batch + 1) * 16]
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    scheduler.step()
    model.eval()
    with torch.no_grad():
        pred = model(X)
        correct = (pred.argmax(1) == y).type(torch.float).sum().item()
    print(f"Epoch {epoch + 1} loss: {loss.item():>.4f} test: {loss_fn(pred, y).item():.4f} "
          f"acc: {(100 * correct / 64):>0.1f}% lr {scheduler.get_last_lr()}")
for cls, kw in [(torch.optim.AdamW, {"lr": 3e-3}),
                (torch.optim.RMSprop, {"lr": 1e-3, "momentum": 0.9, "centered": True}),
                (torch.optim.Adagrad, {"lr": 0.05}), (torch.optim.Adam, {"lr": 1e-2, "amsgrad": True})]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 2))
    optimizer = cls(model.parameters(), **kw)
    for step in range(12):
        loss = loss_fn(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(cls.__name__, f"{loss.item():.4f}", model[2].bias)
""",
    "custom_optimizer_named_params_and_copies": """
import copy
nn = torch.nn
class MySGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.0):
        defaults = dict(lr=lr, momentum=momentum)
        super().__init__(params, defaults)
    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "buf" not in state:
                    state["buf"] = torch.zeros_like(p)
                state["buf"].mul_(group["momentum"]).add_(p.grad)
                p.add_(state["buf"], alpha=-group["lr"])
        return loss
torch.manual_seed(0)
m = nn.Linear(3, 1)
opt = MySGD(m.parameters(), lr=0.1, momentum=0.9)
print(opt)
x = torch.randn(8, 3); y = torch.randn(8, 1)
for i in range(3):
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(i, round(loss.item(), 4))
print(opt.state_dict())
s = torch.optim.lr_scheduler.StepLR(opt, 1, 0.5)
opt.step(); s.step(); print(s.get_last_lr())
opt2 = torch.optim.SGD(m.named_parameters(), lr=0.1)
print(opt2.param_groups[0].get("param_names"), opt2.state_dict()["param_groups"])
best = copy.deepcopy(m.state_dict())
with torch.no_grad():
    m.weight.add_(1.0)
print(best["weight"], m.weight)
m.load_state_dict(best)
print(m.weight)
osd = copy.deepcopy(torch.optim.Adam(m.parameters()).state_dict())
print(osd)
a = torch.optim.Adam(m.parameters(), lr=0.1)
((m(x) - y) ** 2).mean().backward(); a.step()
b = torch.optim.Adam(m.parameters(), lr=0.1)
b.load_state_dict(copy.deepcopy(a.state_dict()))
print(b.state[m.weight]["exp_avg"] is a.state[m.weight]["exp_avg"], b.state[m.bias])
print(torch.optim.SGD(m.parameters(), lr=torch.tensor(0.1)).param_groups[0]["lr"])
""",
}

SNIPPETS.update({
    "more_optimizers_reprs_state_dicts_and_errors": """
torch.manual_seed(0)
m = torch.nn.Linear(3, 2)
O = torch.optim
for cls in [O.Adadelta, O.Adamax, O.NAdam, O.RAdam, O.Rprop, O.ASGD, O.LBFGS, O.SparseAdam]:
    opt = cls(m.parameters())
    print(opt); print(opt.defaults); print(opt.state_dict())
    print(cls(m.parameters(), lr=torch.tensor(0.01)))
makes = [lambda: O.Adadelta(m.parameters(), lr=-1), lambda: O.Adadelta(m.parameters(), rho=1.5),
         lambda: O.Adadelta(m.parameters(), eps=-1), lambda: O.Adadelta(m.parameters(), weight_decay=-1),
         lambda: O.Adamax(m.parameters(), betas=(1.0, 0.5)),
         lambda: O.Adamax(m.parameters(), betas=(0.5, -0.5)),
         lambda: O.NAdam(m.parameters(), momentum_decay=-1), lambda: O.NAdam(m.parameters(), eps=-1e-3),
         lambda: O.RAdam(m.parameters(), weight_decay=-1), lambda: O.Rprop(m.parameters(), etas=(1.5, 2.0)),
         lambda: O.Rprop(m.parameters(), etas=(0.5, 0.9)), lambda: O.ASGD(m.parameters(), lr=-1),
         lambda: O.ASGD(m.parameters(), weight_decay=-1), lambda: O.LBFGS(m.parameters(), lr=-1),
         lambda: O.LBFGS([{"params": [m.weight]}, {"params": [m.bias]}]),
         lambda: O.SparseAdam(m.parameters(), lr=0), lambda: O.SparseAdam(m.parameters(), eps=0),
         lambda: O.SparseAdam(m.parameters(), betas=(0.9, 1)), lambda: O.Adam(m.parameters(), betas=(0, 0.9)),
         lambda: O.Adam(m.parameters(), lr=torch.tensor([0.1, 0.2])),
         lambda: O.Adam(m.parameters(), lr=torch.tensor(0.1), foreach=True),
         lambda: O.SGD(m.parameters(), fused=True, differentiable=True),
         lambda: O.Adagrad(m.parameters(), fused=True, foreach=True)]
for make in makes:
    try:
        print(make())
    except Exception as e:
        print(type(e).__name__, e)
for cls in [O.Adam, O.AdamW, O.RMSprop, O.Adadelta, O.Adamax, O.NAdam, O.RAdam, O.Rprop, O.ASGD]:
    opt = cls(m.parameters(), capturable=True)
    m(torch.ones(1, 3)).sum().backward()
    try:
        opt.step()
    except AssertionError as e:
        print(cls.__name__, "AssertionError", e)
    print(len(opt.state), opt.state_dict()["state"].keys())
    opt = cls(m.parameters(), differentiable=True)
    try:
        opt.step()
    except RuntimeError as e:
        print(cls.__name__, "RuntimeError", e)
    print(opt.state_dict()["state"])
    opt.zero_grad()
opt = O.SparseAdam(m.parameters())
m(torch.ones(1, 3)).sum().backward()
try:
    opt.step()
except RuntimeError as e:
    print("RuntimeError", e)
print(opt.state)
""",
    "schedulers_drive_every_optimizer": """
import warnings
S = torch.optim.lr_scheduler
w = torch.tensor([1.0, -2.0], requires_grad=True)
def fresh(cls=torch.optim.SGD, **kw):
    return cls([w], lr=0.1, **kw)
cases = [(S.StepLR, dict(step_size=3)), (S.MultiStepLR, dict(milestones=[1, 3])),
         (S.ExponentialLR, dict(gamma=0.5)),
         (S.CosineAnnealingLR, dict(T_max=4)), (S.LambdaLR, dict(lr_lambda=[lambda e: 1 / (e + 1)])),
         (S.MultiplicativeLR, dict(lr_lambda=lambda e: 0.5)), (S.LinearLR, dict()), (S.ConstantLR, dict()),
         (S.PolynomialLR, dict()), (S.CosineAnnealingWarmRestarts, dict(T_0=2, eta_min=0.01)),
         (S.OneCycleLR, dict(max_lr=0.5, total_steps=12, three_phase=True)),
         (S.CyclicLR, dict(base_lr=0.01, max_lr=0.2, step_size_up=2, mode="triangular2")),
         (S.CyclicLR, dict(base_lr=0.01, max_lr=0.2, step_size_up=3, mode="exp_range", gamma=0.9))]
for cls, kw in cases:
    for opt_cls in (torch.optim.SGD, torch.optim.NAdam, torch.optim.RAdam, torch.optim.Adamax):
        extra = {"momentum": 0.9} if opt_cls is torch.optim.SGD else {}
        opt = fresh(opt_cls, **extra)
        s = cls(opt, **kw)
        lrs = []
        for _ in range(10):
            opt.zero_grad()
            (w ** 2).sum().backward()
            opt.step()
            s.step()
            lrs.append(round(s.get_last_lr()[0], 7))
        print(cls.__name__, opt_cls.__name__, lrs, w)
    sd = s.state_dict()
    print({k: v for k, v in sd.items() if "lambda" not in k and k != "_scale_fn_ref"})
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    opt = fresh(torch.optim.Rprop)
    s = S.ExponentialLR(opt, 0.5)
    s.step()
    opt.step()
    s.step()
    print(s.get_lr(), s.get_last_lr())
    s = S.ReduceLROnPlateau(fresh(torch.optim.ASGD), patience=0, cooldown=1, min_lr=0.02,
                            threshold_mode="abs", mode="max")
    for m in [1, 0.5, 0.4, 2, 1, 1, 1, 1]:
        s.step(m)
        print(s.get_last_lr(), s.cooldown_counter, s.num_bad_epochs)
    print(s.state_dict())
print([(c.category.__name__, str(c.message)[:80]) for c in caught])
opt = fresh(torch.optim.Adadelta)
seq = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.1, total_iters=2), S.CosineAnnealingLR(opt, T_max=3)],
                     milestones=[2])
for _ in range(6):
    opt.step(); seq.step(); print(seq.get_last_lr(), seq.last_epoch)
print(seq.state_dict())
""",
    "adagrad_state_for_a_later_param_group": """
a = torch.tensor([1.0], requires_grad=True); b = torch.tensor([2.0], requires_grad=True)
opt = torch.optim.Adagrad([a], initial_accumulator_value=0.5)
opt.add_param_group({"params": [b], "initial_accumulator_value": 2.0})
print(opt.state[a], len(opt.state))
(a * b).sum().backward()
opt.step()
print(a, b, opt.state[a], opt.state[b])
""",
    "fused_steps_leave_versions_alone": """
for name, kw in [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
                 ("Adam", dict(lr=0.01, amsgrad=True)), ("AdamW", dict(lr=0.01)), ("Adagrad", dict(lr=0.1))]:
    ps = [torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor(0.5, requires_grad=True)]
    opt = getattr(torch.optim, name)(ps, fused=True, **kw)
    for _ in range(3):
        opt.zero_grad()
        (ps[0] ** 2).sum().backward()
        (ps[1] * 3).backward()
        opt.step()
    print(name, [p._version for p in ps], [(k, v._version) for k, v in opt.state[ps[0]].items()], ps)
""",
})

# Training programs: the optimizers' arithmetic is torch's bit for bit (see above), but the engine's forward
# and backward passes may round a last bit differently from torch's kernels, which can move a printed
# loss or weight by one unit in its last printed digit.
TRAINING = {
    "training_loops_with_more_optimizers": """
nn = torch.nn
torch.manual_seed(0)
X = torch.randn(24, 3)
y = torch.tanh(X @ torch.tensor([[0.8], [-1.2], [0.4]])) + 0.05 * torch.randn(24, 1)
O = torch.optim
configs = [(O.Adadelta, {}), (O.Adadelta, {"lr": 0.5, "rho": 0.95, "weight_decay": 0.01}),
           (O.Adamax, {"lr": 0.05}), (O.Adamax, {"lr": 0.05, "betas": (0.8, 0.95), "maximize": False}),
           (O.NAdam, {"lr": 0.05}),
           (O.NAdam, {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
           (O.NAdam, {"lr": 0.05, "momentum_decay": 0.01, "weight_decay": 0.01}),
           (O.RAdam, {"lr": 0.05, "betas": (0.9, 0.99)}),
           (O.RAdam, {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
           (O.Rprop, {"lr": 0.05}), (O.Rprop, {"lr": 0.01, "etas": (0.4, 1.3), "step_sizes": (1e-4, 0.2)}),
           (O.ASGD, {"lr": 0.1}), (O.ASGD, {"lr": 0.1, "t0": 3, "lambd": 0.01, "alpha": 0.6}),
           (O.SGD, {"lr": 0.1, "momentum": 0.9, "nesterov": True, "fused": True}),
           (O.Adam, {"lr": 0.05, "foreach": True}), (O.Adagrad, {"lr": 0.1, "foreach": False})]
for cls, kw in configs:
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = cls(model.parameters(), **kw)
    losses = []
    for step in range(6):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), y)
        loss.backward()
        opt.step()
        losses.append(f"{loss.item():.6f}")
    print(cls.__name__, losses)
    print(model[2].weight, model[2].bias, model[0].weight._version)
    sd = opt.state_dict()
    print(sorted(sd), list(sd["state"]), list(sd["state"][0]), sd["param_groups"][0]["params"])
    print({k: (v.dtype, tuple(v.shape), v._version) for k, v in sd["state"][3].items()})
    print(opt.state[model[2].bias])
print(opt)
""",
    "lbfgs_closures_and_line_search": """
torch.manual_seed(0)
X = torch.randn(16, 3)
Y = torch.tanh(X @ torch.tensor([[0.5], [-1.0], [2.0]])) + 0.1
for kw in [dict(max_iter=4), dict(lr=0.5, max_iter=5, history_size=3),
           dict(max_iter=4, line_search_fn="strong_wolfe"),
           dict(lr=0.8, max_iter=4, history_size=2, line_search_fn="strong_wolfe", tolerance_grad=1e-5)]:
    torch.manual_seed(1)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.LBFGS(model.parameters(), **kw)
    calls = []
    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(torch.tanh(model(X)), Y)
        loss.backward()
        calls.append(f"{loss.item():.6f}")
        return loss
    for i in range(3):
        loss = opt.step(closure)
        print(i, f"{loss.item():.6f}", len(calls))
    print(calls)
    print(model.weight, model.bias, model.weight._version)
    st = opt.state[model.weight]
    print(list(st), st["func_evals"], st["n_iter"], type(st["t"]).__name__, type(st["H_diag"]).__name__)
    print(len(st["old_dirs"]), len(st["al"]), st["al"][-1], f"{st['prev_loss']:.6f}", st["t"])
    sd = opt.state_dict()
    print(list(sd["state"]), sd["param_groups"], sd["state"][0]["prev_flat_grad"].shape)
print(opt)
try:
    torch.optim.LBFGS(model.parameters(), line_search_fn="backtracking").step(closure)
except RuntimeError as e:
    print("RuntimeError:", e)
w = torch.tensor([3.0, -1.0], requires_grad=True)
opt = torch.optim.LBFGS([w], lr=1, tolerance_grad=1e-3)
def quadratic():
    opt.zero_grad()
    loss = ((w - torch.tensor([1.0, 2.0])) ** 2).sum()
    loss.backward()
    return loss
print(opt.step(quadratic), w, opt.state[w]["n_iter"], opt.step(quadratic), opt.state[w]["func_evals"])
""",
    "lbfgs_with_a_tensor_lr": """
torch.manual_seed(0)
X = torch.randn(16, 3)
Y = torch.tanh(X @ torch.tensor([[0.5], [-1.0], [2.0]])) + 0.1
for lr in [torch.tensor(0.5), torch.tensor([0.7])]:
    for ls in [None, "strong_wolfe"]:
        torch.manual_seed(1)
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.LBFGS(model.parameters(), lr=lr, max_iter=4, line_search_fn=ls)
        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(torch.tanh(model(X)), Y)
            loss.backward()
            return loss
        for i in range(2):
            print(f"{opt.step(closure).item():.6f}")
        st = opt.state[model.weight]
        print(type(st["t"]).__name__, st["t"], st["func_evals"], model.weight)
""",
    "clip_grad_and_parameter_vectors": """
import warnings
torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(3, 2)); b = torch.nn.Parameter(torch.randn(2))
U = torch.nn.utils
def fill():
    w.grad = None; b.grad = None
    ((w * torch.randn(3, 2)).sum() * 3 + (b ** 2).sum()).backward()
fill()
v = w.grad._version
n = U.clip_grad_norm_([w, b], 100.0)
print(n, n.dtype, n.requires_grad, w.grad._version - v, w.grad)
for nt in [1, 2, 3.5, 'inf', float('inf'), 0.5]:
    fill(); n = U.clip_grad_norm_([w, b], 1.0, norm_type=nt); print(nt, n, w.grad, b.grad)
fill(); print(U.clip_grad_norm_(w, 0.5), w.grad)
fill(); print(U.get_total_norm([w.grad, b.grad]), U.get_total_norm([w.grad], norm_type=1))
fill(); U.clip_grads_with_norm_([w, b], 1.0, torch.tensor(10.0)); print(w.grad)
fill(); v = w.grad._version; U.clip_grad_value_([w, b], 0.1); print(w.grad._version - v, w.grad, b.grad)
fill(); U.clip_grad_value_(w, 1); print(w.grad)
with warnings.catch_warnings(record=True) as c:
    warnings.simplefilter('always')
    print(U.clip_grad_norm_((p for p in []), 1.0))
    print(U.clip_grad_norm_([torch.nn.Parameter(torch.ones(1))], 1.0))
    U.clip_grad_norm([w], 1.0)
print([(x.category.__name__, str(x.message)) for x in c])
w.grad = torch.tensor([[float('nan'), 1.0], [1.0, 1.0], [1.0, 1.0]])
try:
    U.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print(e)
vec = U.parameters_to_vector([w, b]); print(vec, vec.grad_fn.next_functions)
U.vector_to_parameters(vec.detach() * 2, [w, b]); print(w, b)
try: U.vector_to_parameters([1.0], [w])
except TypeError as e: print(e)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
opt = torch.optim.RAdam(model.parameters(), lr=0.05)
X = torch.randn(32, 4); y = X.sum(1, keepdim=True).sin()
for step in range(6):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(X), y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    opt.step()
    print(step, f"{loss.item():.6f} {norm.item():.5f}")
print(model[2].weight)
""",
}

KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_output_matches_torch(name: str) -> None:
    if name in KNOWN_DIFFERENCES:
        pytest.xfail(KNOWN_DIFFERENCES[name])
    assert _run(engine, SNIPPETS[name]) == _run(torch, SNIPPETS[name])


NUMBER = re.compile(r"-?\d+\.\d+(?:e[+-]\d+)?")


def _assert_same_print(actual: str, expected: str) -> None:
    """The same text, each printed decimal within one unit of its last printed digit."""
    assert NUMBER.sub("#", actual) == NUMBER.sub("#", expected)
    for a, e in zip(NUMBER.findall(actual), NUMBER.findall(expected)):
        mantissa, _, exponent = e.partition("e")
        unit = 10.0 ** (int(exponent or 0) - len(mantissa.split(".")[1]))
        assert abs(float(a) - float(e)) <= unit * 1.001, (a, e)


@pytest.mark.parametrize("name", sorted(TRAINING))
def test_training_output_matches_torch(name: str) -> None:
    _assert_same_print(_run(engine, TRAINING[name]), _run(torch, TRAINING[name]))


def test_training_comparison_notices_a_real_difference() -> None:
    with pytest.raises(AssertionError):
        _assert_same_print("loss 0.123456 tensor([1.0000e-05])", "loss 0.123458 tensor([1.0000e-05])")
    with pytest.raises(AssertionError):
        _assert_same_print("Adam (lr: 0.1)", "AdamW (lr: 0.1)")
    _assert_same_print("loss 0.123457 tensor([1.0001e-05])", "loss 0.123456 tensor([1.0000e-05])")


IMPORTS = """
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR, ReduceLROnPlateau
from torch.optim import lr_scheduler, AdamW
print(StepLR.__name__, ReduceLROnPlateau.__name__, lr_scheduler.CosineAnnealingLR.__name__, AdamW.__name__)
print(sorted(lr_scheduler.__all__))
print(isinstance(StepLR(AdamW([nn.Parameter(torch.ones(1))]), 1), lr_scheduler.LRScheduler))
"""


def test_scheduler_imports_match_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _run(torch, IMPORTS)
    for name, module in [("torch", engine), ("torch.nn", engine.nn), ("torch.optim", engine.optim),
                         ("torch.optim.lr_scheduler", engine.optim.lr_scheduler)]:
        monkeypatch.setitem(sys.modules, name, module)
    assert _run(engine, IMPORTS) == expected


def test_public_names_match_torch() -> None:
    assert engine.optim.lr_scheduler.__all__ == torch.optim.lr_scheduler.__all__
    missing = {"Adafactor", "Muon", "swa_utils", "swap_in_optimizer_params_and_state"}
    assert sorted(engine.optim.__all__) == sorted(set(torch.optim.__all__) - missing)
    for name in engine.optim.__all__:
        assert type(getattr(engine.optim, name)).__name__ == type(getattr(torch.optim, name)).__name__, name


@pytest.mark.parametrize("fn,kwargs", [("leaky_relu", {"negative_slope": 0.2}), ("elu", {}), ("selu", {})])
def test_inplace_result_nodes_are_named_like_torch(fn: str, kwargs: dict) -> None:
    names = []
    for T, F in ((torch, torch.nn.functional), (engine, engine.nn.functional)):
        h = T.tensor([-1.0, 0.5, 2.0], requires_grad=True) * 2
        names.append(type(getattr(F, fn)(h, inplace=True, **kwargs).grad_fn).__name__)
    assert names[1] == names[0]


def test_dropout_in_place_while_training_returns_its_input() -> None:
    results = []
    for T, F in ((torch, torch.nn.functional), (engine, engine.nn.functional)):
        h = T.tensor([-1.0, 0.5, 2.0], requires_grad=True) * 2
        results.append((F.dropout(h, 0.5, training=True, inplace=True) is h, h._version))
    assert results[1] == results[0]


def test_embedding_node_is_named_like_torch() -> None:
    names = []
    for T in (torch, engine):
        emb = T.nn.Embedding(4, 2)
        names.append(type(emb(T.tensor([0, 3])).grad_fn).__name__)
    assert names[1] == names[0]
