"""Training loops, optimizers, schedulers and module state run with torch and with the engine: same output."""

from __future__ import annotations

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
    ("AdamW", {}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True, "weight_decay": 0.1, "alpha": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "maximize": True}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.1}),
]


def _arrays(t) -> np.ndarray:
    return t.detach().numpy().copy() if isinstance(t, torch.Tensor) else t._data.copy()


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS)
def test_same_gradients_give_the_same_parameters_and_state(name: str, kwargs: dict) -> None:
    """Fed identical gradients, every update agrees to float32 rounding (torch's square roots are not
    correctly rounded, so a few elements may differ in their last bits); parameters print the same."""
    rng = np.random.RandomState(0)
    shapes = [(37, 5), (5,), ()]
    start = [np.asarray(rng.randn(*s), np.float32) for s in shapes]
    grads = [[np.asarray(rng.randn(*s), np.float32) for s in shapes] for _ in range(8)]
    results = []
    for T in (torch, engine):
        params = [T.tensor(a.copy(), requires_grad=True) for a in start]
        opt = getattr(T.optim, name)(params, **kwargs)
        for step_grads in grads:
            for p, g in zip(params, step_grads):
                p.grad = T.tensor(g.copy())
            opt.step()
        state = [(key, value) for p in params for key, value in opt.state[p].items()]
        results.append((params, state, [p._version for p in params]))
    (t_params, t_state, t_versions), (e_params, e_state, e_versions) = results
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

KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_output_matches_torch(name: str) -> None:
    if name in KNOWN_DIFFERENCES:
        pytest.xfail(KNOWN_DIFFERENCES[name])
    assert _run(engine, SNIPPETS[name]) == _run(torch, SNIPPETS[name])


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
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Optimizer", "lr_scheduler"):
        assert hasattr(engine.optim, name)


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
