"""Short tutorial-style PyTorch programs (our own) that the sandbox must run exactly like PyTorch.

Used by tests/test_sandbox_keeps_legit_code.py: each runs in the real Sandbox and its stdout is
compared with real PyTorch's. Each program imports what it uses, like a user's snippet would.
"""

TUTORIAL_SNIPPETS: dict[str, str] = {}


def snippet(name: str, code: str) -> None:
    assert name not in TUTORIAL_SNIPPETS, name
    TUTORIAL_SNIPPETS[name] = code.strip("\n") + "\n"


snippet("net_class_forward", """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.fc1 = nn.Linear(4, hidden)
        self.fc2 = nn.Linear(hidden, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))

torch.manual_seed(0)
net = Net()
print(net)
out = net(torch.randn(3, 4))
print(out.shape, out.grad_fn)
print(sum(p.numel() for p in net.parameters()))
""")

snippet("training_loop_sgd", """
import torch
import torch.nn as nn

torch.manual_seed(1)
x = torch.linspace(-1, 1, 20).unsqueeze(1)
y = 3 * x + 0.5
model = nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
loss_fn = nn.MSELoss()
for epoch in range(30):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1:3d}  loss {loss.item():.6f}")
print(f"w={model.weight.item():.3f} b={model.bias.item():.3f}")
""")

snippet("training_loop_adam", """
import torch
import torch.nn as nn

torch.manual_seed(2)
model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1), nn.Sigmoid())
x = torch.randn(32, 2)
y = (x[:, 0] * x[:, 1] > 0).float().unsqueeze(1)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
losses = []
for step in range(50):
    opt.zero_grad()
    loss = nn.BCELoss()(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
print(round(losses[0], 4), round(losses[-1], 4), losses[-1] < losses[0])
acc = ((model(x) > 0.5).float() == y).float().mean()
print(f"accuracy: {acc.item():.2%}")
""")

snippet("custom_function_ctx_style", """
import torch
from torch.autograd import Function

class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return 2 * x * grad_out

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = Square.apply(x)
y.sum().backward()
print(y, x.grad)
print(type(y.grad_fn).__name__, y.grad_fn.name())
""")

snippet("custom_function_setup_context_style", """
import torch

class ScaledTanh(torch.autograd.Function):
    @staticmethod
    def forward(x, scale):
        return torch.tanh(x) * scale

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.scale = scale
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        t = out / ctx.scale
        return g * ctx.scale * (1 - t * t), None

x = torch.tensor([0.0, 0.5, -1.0], requires_grad=True)
ScaledTanh.apply(x, 2.0).sum().backward()
print(x.grad)
ref = x.detach().clone().requires_grad_(True)
(torch.tanh(ref) * 2.0).sum().backward()
print(torch.allclose(x.grad, ref.grad))
""")

snippet("tensor_hooks", """
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
seen = []
def remember(grad):
    seen.append(grad.tolist())
x.register_hook(remember)
h = x.register_hook(lambda g: g * 2)
(x ** 2).sum().backward()
print(seen, x.grad)
h.remove()
x.grad = None
(x ** 2).sum().backward()
print(x.grad)
""")

snippet("module_forward_hooks_by_hand", """
import torch
import torch.nn as nn

layer = nn.Linear(3, 2)
acts = {}
def run(name, module, inp):
    out = module(inp)
    acts[name] = tuple(out.shape)
    return out
torch.manual_seed(0)
x = torch.randn(4, 3)
y = run("fc", layer, x)
print(acts, y.requires_grad)
""")

snippet("retain_grad_intermediate", """
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * 3
b.retain_grad()
c = b.pow(2).sum()
c.backward()
print(b.grad, a.grad, b.is_leaf, a.is_leaf)
print(b.requires_grad, c.grad_fn.name(), b.grad_fn.next_functions)
""")

snippet("no_grad_context_and_decorator", """
import torch

w = torch.ones(3, requires_grad=True)

@torch.no_grad()
def predict(x):
    return (w * x).sum()

with torch.no_grad():
    y = w * 2
print(y.requires_grad, predict(torch.arange(3.0)).requires_grad, torch.is_grad_enabled())
z = w * 2
print(z.requires_grad)
with torch.enable_grad():
    print((w * 1).requires_grad)
""")

snippet("fstrings_format_specs", """
import torch

t = torch.tensor([3.14159, 2.71828, 1.41421])
print(f"{t[0].item():.2f} | {t.sum().item():>10.4f} | {t.mean().item():+.3e}")
for i, v in enumerate(t.tolist()):
    print(f"{i:02d}: {v:8.3f} {v:<8.1f}|")
n = 1234567
print(f"{n:,} {n:_} {0.125:%} {255:#x} {7:b} {'name':^10}|")
print("{:.3f} and {}".format(t.max().item(), t.argmax().item()))
""")

snippet("exception_type_names", """
import torch

errors = []
def attempt(fn):
    try:
        fn()
    except Exception as e:
        errors.append(type(e).__name__)
        print(type(e).__name__, "->", e)

attempt(lambda: torch.ones(2, 3) @ torch.ones(2, 3))
attempt(lambda: torch.ones(3).view(2, 2))
attempt(lambda: torch.ones(2, requires_grad=True).backward())
attempt(lambda: [1, 2][5])
attempt(lambda: {"a": 1}["b"])
attempt(lambda: int("x"))
print(errors)
""")

snippet("isinstance_checks", """
import torch
import torch.nn as nn

layer = nn.Linear(2, 2)
t = torch.ones(2)
p = next(layer.parameters())
print(isinstance(t, torch.Tensor), isinstance(p, nn.Parameter), isinstance(p, torch.Tensor))
print(isinstance(layer, nn.Module), isinstance(3, (int, float)), isinstance(t, (list, tuple)))
print(torch.is_tensor(p), type(p).__name__, type(layer).__name__, type(t.shape).__name__)
""")

snippet("comprehensions", """
import torch

xs = [torch.tensor(float(i)) for i in range(5)]
squares = {i: (x ** 2).item() for i, x in enumerate(xs)}
evens = [x.item() for x in xs if x.item() % 2 == 0]
pairs = [(a, b) for a in range(3) for b in range(a)]
flat = sum([[i] * i for i in range(4)], [])
print(squares, evens, pairs, flat)
print(torch.stack(xs), {k for k in "hello"} == set("helo"))
""")

snippet("zip_enumerate", """
import torch

names = ["w1", "w2", "w3"]
values = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
loss = (values ** 2).sum()
loss.backward()
for i, (name, v, g) in enumerate(zip(names, values.tolist(), values.grad.tolist())):
    print(i, name, v, g)
print(dict(zip(names, values.grad.tolist())), list(zip(*[(1, 2), (3, 4)])))
""")

snippet("math_module", """
import math
import torch

print(math.pi, math.e, math.sqrt(2), math.exp(1.0), math.log(10), math.floor(2.7), math.ceil(2.1))
print(math.isclose(math.sin(math.pi), 0.0, abs_tol=1e-12), math.inf > 1e308, math.isnan(float("nan")))
x = torch.tensor(math.pi / 4, requires_grad=True)
torch.sin(x).backward()
print(round(x.grad.item(), 6), round(math.cos(math.pi / 4), 6), math.factorial(5), math.gcd(12, 18))
""")

snippet("manual_seed_randn", """
import torch

torch.manual_seed(42)
a = torch.randn(2, 3)
torch.manual_seed(42)
b = torch.randn(2, 3)
print(torch.equal(a, b), a)
print(torch.rand(4), torch.randint(0, 5, (3,)), torch.randn(2, dtype=torch.float64))
g = torch.Generator().manual_seed(7)
print(g.initial_seed())
""")

snippet("print_modules_and_parameters", """
import torch
import torch.nn as nn

torch.manual_seed(3)
model = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1, bias=False))
print(model)
for name, p in model.named_parameters():
    print(name, tuple(p.shape), p.requires_grad)
print(list(model.state_dict().keys()))
print(model[0].bias)
print(len(model), model[1], [type(m).__name__ for m in model.children()])
""")

snippet("state_dict_round_trip", """
import torch
import torch.nn as nn

torch.manual_seed(4)
a = nn.Linear(2, 2)
b = nn.Linear(2, 2)
print(torch.equal(a.weight, b.weight))
result = b.load_state_dict(a.state_dict())
print(result, torch.equal(a.weight, b.weight))
sd = a.state_dict()
print([(k, v.shape) for k, v in sd.items()])
""")

snippet("item_and_tolist", """
import torch

t = torch.tensor([[1.5, 2.0], [3.25, -4.0]])
print(t.sum().item(), t[1, 0].item(), t.tolist(), t[0].tolist(), t.int().tolist())
print(type(t.sum().item()).__name__, type(t.tolist()).__name__, torch.tensor(7).item() + 1)
""")

snippet("numpy_interop_basics", """
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.5]], requires_grad=True)
a = x.detach().numpy()
print(a)
print(a.shape, a.dtype, a.sum(), a.mean(axis=0), a.T)
print(a.tolist(), a[1, 1], a[0], a > 2)
b = a * 2 - 1
print(b, type(b).__name__, b.max(), b.argmin())
print(torch.from_numpy(b), torch.tensor(a).dtype)
""")

snippet("numpy_after_training", """
import torch

torch.manual_seed(5)
w = torch.randn(3, requires_grad=True)
for _ in range(5):
    loss = ((w - 1.0) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
arr = w.detach().numpy()
print(arr.round(3), arr.round(3).tolist(), float(arr.sum()) > 0)
print(f"{arr[0]:.4f}", arr.astype("float64").dtype, arr.copy().reshape(3, 1).shape)
""")

snippet("numpy_scalars_and_dtypes", """
import torch

a = torch.arange(6).numpy()
f = torch.linspace(0, 1, 3).numpy()
print(a.dtype, f.dtype, a.dtype == "int64", str(f.dtype), f.dtype.name, f.dtype.itemsize)
s = f.sum()
print(s, repr(s), s * 2, s.item(), type(s).__name__, s.dtype)
print(a.sum(), a.max() - a.min(), a.cumsum(), a.std().round(4), a.var())
print(a.reshape(2, 3).transpose(), a.reshape(2, 3).all(axis=1), a.any(), a.clip(1, 4))
print(f[0] + 1, [v for v in f], list(a[:3]), a.squeeze().ndim, a.size, a.flatten().shape)
""")

snippet("numpy_modify_copy", """
import torch

t = torch.zeros(3)
n = t.numpy()
n[0] = 5.0
n += 1
print(n, n[0])
m = torch.ones(2, 2).numpy()
m[:, 0] = 9
print(m, torch.tensor(m), torch.from_numpy(m).sum())
""")

snippet("autograd_grad_create_graph", """
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
print(g, g.requires_grad)
gg, = torch.autograd.grad(g.sum(), x, retain_graph=True)
print(gg)
penalty = (g ** 2).sum()
penalty.backward()
print(x.grad)
""")

snippet("functional_jacobian_hessian", """
import torch
from torch.autograd.functional import jacobian, hessian

def f(v):
    return torch.stack([v[0] * v[1], v[0] ** 2 + v[1]])

def energy(v):
    return (v ** 2).sum() + v[0] * v[1]

x = torch.tensor([1.0, 2.0])
print(jacobian(f, x))
print(hessian(energy, x))
print(torch.autograd.functional.jacobian(torch.sin, torch.zeros(2)))
""")

snippet("broadcasting", """
import torch

a = torch.arange(3.0).reshape(3, 1)
b = torch.arange(4.0)
c = a + b
print(c.shape, c)
w = torch.ones(1, 4, requires_grad=True)
(c * w).sum().backward()
print(w.grad)
print((torch.ones(2, 1, 3) * torch.ones(4, 1)).shape)
try:
    torch.ones(2, 3) + torch.ones(4)
except RuntimeError as e:
    print("RuntimeError:", e)
""")

snippet("indexing_slicing", """
import torch

t = torch.arange(12.0).reshape(3, 4)
print(t[0], t[:, 1], t[1:, ::2], t[-1, -1], t[t > 5])
print(t[[0, 2]], t[..., 0], t[None, 0].shape, t[1][2])
x = torch.arange(5.0, requires_grad=True)
x[1:4].sum().backward()
print(x.grad)
t[0, :] = -1
print(t)
""")

snippet("inplace_errors_caught", """
import torch

leaf = torch.ones(3, requires_grad=True)
try:
    leaf.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.exp()
b.add_(1)
try:
    b.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    leaf.add_(1)
print(leaf)
""")

snippet("optimizer_zero_grad_pattern", """
import torch

w = torch.tensor([1.0, -1.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
history = []
for i in range(4):
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    opt.step()
    history.append([round(v, 4) for v in w.tolist()])
print(history)
print(opt.param_groups[0]["lr"], len(opt.param_groups))
""")

snippet("gradient_accumulation", """
import torch

w = torch.tensor(1.0, requires_grad=True)
for batch in [1.0, 2.0, 3.0]:
    loss = (w * batch - 1) ** 2
    loss.backward()
    print(batch, w.grad.item())
w.grad = None
print(w.grad)
""")

snippet("detach_and_clone", """
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.detach()
c = a.clone()
d = a.detach().clone().requires_grad_(True)
print(b.requires_grad, c.requires_grad, c.grad_fn.name(), d.is_leaf, d.requires_grad)
b[0] = 10
print(a)
""")

snippet("warnings_record", """
import warnings
import torch

def legacy(x):
    warnings.warn("legacy() is deprecated", DeprecationWarning)
    return x + 1

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy(torch.ones(1))
    torch.tensor(torch.ones(1, requires_grad=True))
print(len(caught))
for w in caught:
    print(w.category, str(w.message)[:45])
print(issubclass(caught[0].category, DeprecationWarning))
""")

snippet("warnings_filters", """
import warnings

warnings.filterwarnings("ignore", message="noisy")
with warnings.catch_warnings(record=True) as log:
    warnings.warn("noisy thing")
    warnings.warn("important", RuntimeWarning)
print([str(w.message) for w in log])
with warnings.catch_warnings():
    warnings.simplefilter("error")
    try:
        warnings.warn("now an error", UserWarning)
    except UserWarning as e:
        print("caught:", e)
warnings.warn("after the block: not an error")
print("done")
""")

snippet("anomaly_mode_context", """
import torch
import warnings

warnings.simplefilter("ignore")
x = torch.tensor([1.0, 0.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = x / x
    try:
        y.sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
print(torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(True)
print(torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(False)
""")

snippet("checkpoint_import", """
import torch
from torch.utils.checkpoint import checkpoint

def block(t):
    return torch.sin(t) * t

x = torch.tensor([0.5, 1.0], requires_grad=True)
y = checkpoint(block, x, use_reentrant=False)
y.sum().backward()
print(x.grad)
""")

snippet("autograd_submodule_imports", """
import torch
import torch.autograd.function
import torch.nn.init as init
import torch.autograd.graph
from torch.autograd.function import once_differentiable, Function
from torch.autograd import grad

class Double(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        return g * 2

w = torch.empty(2, 2)
init.constant_(w, 0.5)
x = torch.ones(2, requires_grad=True)
print(w, grad(Double.apply(x).sum(), x), torch.autograd.function.Function is torch.autograd.Function)
""")

snippet("nn_init_and_functional", """
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)
layer = nn.Linear(3, 2)
nn.init.zeros_(layer.bias)
nn.init.ones_(layer.weight)
x = torch.tensor([[1.0, -2.0, 3.0]])
print(layer(x), F.relu(layer(x) - 2), F.softmax(torch.tensor([1.0, 2.0, 3.0]), dim=0))
print(F.mse_loss(torch.zeros(3), torch.ones(3)), F.cross_entropy(torch.tensor([[2.0, 0.5]]), torch.tensor([0])))
""")

snippet("module_train_eval_and_buffers", """
import torch
import torch.nn as nn

class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros(1))
        self.lin = nn.Linear(1, 1)

    def forward(self, x):
        if self.training:
            self.steps += 1
        return self.lin(x)

m = Counter()
m(torch.ones(1, 1))
m.eval()
m(torch.ones(1, 1))
print(m.steps, m.training, [k for k in m.state_dict()])
""")

snippet("module_list_and_loops", """
import torch
import torch.nn as nn

class Deep(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = torch.relu(x)
        return x

torch.manual_seed(8)
net = Deep([4, 8, 8, 1])
print(net(torch.randn(2, 4)).shape, len(net.layers))
print([n for n, _ in net.named_parameters()])
""")

snippet("grad_fn_walk", """
import torch

x = torch.tensor(2.0, requires_grad=True)
y = torch.exp(x * 3) + x
node = y.grad_fn
seen = []
stack = [node]
while stack:
    n = stack.pop()
    if n is None:
        continue
    seen.append(n.name())
    stack.extend(f for f, _ in n.next_functions)
print(seen)
""")

snippet("dtype_and_shapes", """
import torch

t = torch.ones(2, 3, dtype=torch.float64)
print(t.dtype, t.shape, t.size(), t.dim(), t.numel(), t.float().dtype, t.long().dtype)
print(torch.zeros(2).dtype, torch.tensor([1, 2]).dtype, torch.tensor([True]).dtype)
print(t.view(3, 2).shape, t.reshape(-1).shape, t.unsqueeze(0).shape, t.t().shape, t.permute(1, 0).shape)
""")

snippet("reductions_and_math_ops", """
import torch

t = torch.tensor([[1.0, 4.0], [9.0, 16.0]])
print(t.sqrt(), t.mean(dim=0), t.sum(dim=1, keepdim=True), t.max(), t.min(dim=1))
print(torch.argmax(t), t.std(), t.var(), t.norm(), t.log().round(decimals=3))
print(torch.where(t > 5, t, torch.zeros_like(t)), torch.clamp(t, 2, 10), t.abs().prod())
""")

snippet("dict_of_metrics", """
import torch

torch.manual_seed(9)
preds = torch.randn(6)
target = (torch.randn(6) > 0).float()
metrics = {
    "mse": torch.mean((torch.sigmoid(preds) - target) ** 2).item(),
    "positives": int(target.sum().item()),
    "max_logit": preds.max().item(),
}
for key in sorted(metrics):
    value = metrics[key]
    print(f"{key:>10}: {value:.4f}" if isinstance(value, float) else f"{key:>10}: {value}")
""")

snippet("closures_and_lambdas", """
import torch

def make_loss(target):
    def loss(pred):
        return ((pred - target) ** 2).mean()
    return loss

loss = make_loss(torch.tensor([1.0, 2.0]))
p = torch.zeros(2, requires_grad=True)
loss(p).backward()
print(p.grad)
apply_twice = lambda f, v: f(f(v))
print(apply_twice(torch.exp, torch.zeros(1)))
print(sorted([3.0, 1.0, 2.0], key=lambda v: -v), list(map(abs, [-1, 2])))
""")

snippet("string_methods_and_printing", """
import torch

t = torch.tensor([1.0, 2.0])
s = str(t)
print(s.upper(), s.startswith("tensor"), repr(t) == s, "-".join(["a", "b"]), s.split("(")[0])
print("loss: %.3f" % 0.12345, "%d items" % 3, "{0}/{1}".format(1, 2))
print(t, end=" | ")
print("same line", sep="")
print(*[1, 2, 3], sep=", ")
""")

snippet("vjp_and_backward_with_gradient", """
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
y.backward(torch.tensor([1.0, 0.5, 0.0]))
print(x.grad)
out, vjp = torch.autograd.functional.vjp(lambda v: v.sin(), torch.zeros(2), torch.ones(2))
print(out, vjp)
""")

snippet("leaf_and_requires_grad_flags", """
import torch

a = torch.randn(2)
b = torch.randn(2, requires_grad=True)
c = a + b
print(a.requires_grad, b.requires_grad, c.requires_grad, a.is_leaf, b.is_leaf, c.is_leaf)
a.requires_grad_()
print(a.requires_grad, (a * 2).grad_fn is not None)
try:
    c.requires_grad_(False)
except RuntimeError as e:
    print("RuntimeError:", e)
""")

snippet("graph_hooks_on_nodes", """
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.grad_fn.register_hook(lambda gin, gout: print("grad_in", gin[0], "grad_out", gout[0]))
y.sum().backward()
z = torch.tensor([3.0], requires_grad=True)
z.register_post_accumulate_grad_hook(lambda p: print("accumulated", p.grad))
(z * 4).sum().backward()
""")

snippet("while_loop_newton", """
import torch

x = torch.tensor(3.0, requires_grad=True)
steps = 0
while True:
    f = x ** 2 - 2
    g, = torch.autograd.grad(f, x)
    with torch.no_grad():
        x -= f / g
    steps += 1
    if abs(f.item()) < 1e-6 or steps > 20:
        break
print(steps, round(x.item(), 6))
""")

snippet("tensor_creation_helpers", """
import torch

print(torch.zeros(2, 2), torch.ones(3), torch.full((2,), 7.0), torch.eye(2))
print(torch.arange(0, 10, 3), torch.linspace(0, 1, 4), torch.zeros_like(torch.ones(2, 1)))
print(torch.cat([torch.ones(1), torch.zeros(2)]), torch.stack([torch.ones(2), torch.zeros(2)], dim=1))
""")

snippet("device_setup_and_type_names", """
import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using {device} device", torch.backends.mps.is_available(), torch.cuda.device_count())
model = nn.Linear(3, 1).to(device)
x = torch.ones(2, 3, device=device)
loss = model(x).pow(2).mean()
loss.backward()
print(f"loss: {loss}", f"{loss:.3f}", [x.device], model.weight.device == device)
print(type(x), type(model.weight), type(x.shape), x.shape[1:], x.shape + (1,))
print(type(x) == torch.Tensor, isinstance(model.weight, torch.Tensor))
""")

snippet("views_base_and_custom_node_fields", """
import torch

x = torch.arange(6.0).reshape(2, 3)
row = x[0]
print(row._is_view(), row._base is x, x._base, x.clone()._is_view())

class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

w = torch.tensor([0.0, 1.0], requires_grad=True)
out = Exp.apply(w)
print(out.grad_fn.saved_tensors, out.grad_fn.needs_input_grad)
out.sum().backward()
print(w.grad)
""")

snippet("module_forward_hooks", """
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
acts = {}
def save(name):
    def hook(module, inputs, output):
        acts[name] = output.detach()
    return hook
h1 = model[0].register_forward_hook(save("fc1"))
h2 = model[1].register_forward_hook(save("relu"))
order = []
model[2].register_forward_pre_hook(lambda m, args: order.append("pre"))
model[2].register_forward_hook(lambda m, args, out: order.append("post"))
model[2].register_forward_pre_hook(lambda m, args: order.append("first"), prepend=True)
double = model[2].register_forward_hook(lambda m, args, out: out * 2)
y = model(torch.ones(1, 2))
print(sorted(acts), acts["relu"], y, order)
h1.remove(); double.remove()
acts.clear()
print(model(torch.ones(1, 2)), sorted(acts))
scale = model[0].register_forward_pre_hook(lambda m, args: args[0] * 0)
print(model(torch.ones(1, 2)))
""")

snippet("sort_norm_layers", """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
s = torch.sort(x, dim=1, descending=True)
print(s.values.grad_fn, x.topk(2, dim=0).values.grad_fn, x.tril().grad_fn, torch.trace(x[:3]).grad_fn)
v, m = torch.var_mean(x, 0)
print(v.grad_fn, torch.std_mean(x)[0].grad_fn, x.cumprod(1).grad_fn)
model = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.BatchNorm1d(4), nn.LeakyReLU(0.1, inplace=True))
print(model)
y = model(x)
print(y.grad_fn, model[1](model[0](x)).grad_fn, model[2].running_mean, model[2].num_batches_tracked)
emb = nn.Embedding(5, 2, padding_idx=0)
e = emb(torch.tensor([[0, 4], [4, 2]]))
loss = y.sum() + e.sum() + s.values[:, 0].sum() + v.sum()
loss.backward()
print(e.grad_fn, emb.weight.grad, x.grad, F.layer_norm(x, (3,)).grad_fn)
""")

snippet("numpy_interop", """
import numpy as np
import torch
a = np.array([1.0, 2.0, 3.0])
t = torch.from_numpy(a)
a[0] = 10
print(t, t.dtype, torch.tensor(np.arange(4)).dtype)
w = torch.tensor(np.linspace(-1, 1, 3), dtype=torch.float32, requires_grad=True)
loss = (w ** 2 * torch.from_numpy(np.array([1.0, 2.0, 3.0], dtype=np.float32))).sum()
loss.backward()
g = w.grad.numpy()
print(g, g.dtype == np.float32, isinstance(g, np.ndarray), np.allclose(g, 2 * w.detach().numpy() * [1, 2, 3]))
m = np.array([[2.0, 1.0], [1.0, 3.0]])
print(np.round(np.linalg.inv(m) @ m, 6), np.linalg.norm(m), np.einsum('ij->i', m), np.float32(0.5) * 2)
x = torch.tensor(m, requires_grad=True)
try:
    np.asarray(x)
except RuntimeError as e:
    print(e)
""")

snippet("computed_names", """
import torch
import torch.nn.functional as F
x = torch.tensor([0.5, 1.5], requires_grad=True)
for name in ['sin', 'exp', 'sigmoid']:
    y = getattr(torch, name)(x)
    g, = torch.autograd.grad(y.sum(), x)
    print(name, type(y.grad_fn).__name__, g)
for fn in [F.relu, F.softplus, torch.tanh]:
    print(fn.__name__, fn(x).grad_fn.name())
for cls in [torch.optim.SGD, torch.optim.Adam, torch.nn.Linear]:
    print(cls.__name__)
model = torch.nn.Linear(2, 1)
print(getattr(model, 'weight').shape, getattr(model, 'missing', 'none'), hasattr(model, 'bias'))
setattr(model, 'scale', 3.0)
print(model.scale)

class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.save_for_backward(x)
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

y = Scale.apply(x, 3.0)
print(y.grad_fn.k, y.grad_fn.saved_tensors[0], y.grad_fn.needs_input_grad, Scale.__name__)
""")

snippet("distributions_reinforce", """
import torch
import torch.distributions as D
from torch.distributions import Categorical, Normal, kl_divergence

torch.manual_seed(0)
logits = torch.zeros(3, requires_grad=True)
policy = Categorical(logits=logits)
actions = policy.sample((5,))
rewards = (actions == 2).float()
loss = -(policy.log_prob(actions) * rewards).mean()
loss.backward()
print(policy, actions, loss, logits.grad)
mu = torch.tensor([0.5], requires_grad=True)
z = Normal(mu, 1.0).rsample((4,))
print(z, z.grad_fn, kl_divergence(Normal(mu, 1.0), Normal(0.0, 1.0)))
print(D.Beta(2.0, 3.0).sample((2,)), D.MultivariateNormal(torch.zeros(2), torch.eye(2)).log_prob(torch.ones(2)))
""")

snippet("func_transforms", """
import torch
from torch.func import grad, vmap, jacrev, hessian, functional_call

f = lambda x: (x.sin() * x).sum()
x = torch.tensor([0.0, 1.0, 2.0])
print(grad(f)(x), grad(grad(lambda t: t ** 3))(torch.tensor(2.0)))
print(vmap(lambda r: r.dot(r))(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
print(jacrev(torch.sin)(x), hessian(f)(x).diagonal())
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
params = {k: v.detach() for k, v in model.named_parameters()}
per_example = vmap(grad(lambda p, xi: functional_call(model, p, (xi,)).sum()), in_dims=(None, 0))
print({k: v.shape for k, v in per_example(params, torch.randn(4, 3)).items()})
""")

snippet("activation_capture_and_named_sequential", """
import torch
from collections import OrderedDict
from torch.nn.modules.module import register_module_forward_hook
net = torch.nn.Sequential(OrderedDict([('fc1', torch.nn.Linear(2, 3)), ('act', torch.nn.ReLU()), ('fc2', torch.nn.Linear(3, 1))]))
for p in net.parameters():
    torch.nn.init.constant_(p, 0.5)
acts = {}
for name, mod in net.named_children():
    mod.register_forward_hook(lambda m, i, o, name=name: acts.__setitem__(name, o.detach()))
seen = []
h = register_module_forward_hook(lambda m, i, o: seen.append(type(m).__name__))
out = net(torch.tensor([[1.0, -3.0]]))
h.remove()
print(net)
for k, v in acts.items():
    print(k, v)
print(out, seen, net.fc1, list(net.state_dict().keys()))
""")

snippet("custom_dataset_training", """
import torch
from torch.utils.data import Dataset, DataLoader

class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.x[i] ** 2

torch.manual_seed(0)
ds = Squares(6)
print(len(ds), ds[2], torch.tensor(Squares(3).x))
w = torch.tensor(0.5, requires_grad=True)
for xb, yb in DataLoader(ds, batch_size=4, shuffle=True):
    loss = ((w * xb - yb) ** 2).mean()
    loss.backward()
    print(xb, round(loss.item(), 4))
print(w.grad)
""")

snippet("transformer_seq2seq_step", """
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                       dropout=0.1, batch_first=True)
src, tgt = torch.randn(2, 5, 8), torch.randn(2, 4, 8)
tgt_mask = nn.Transformer.generate_square_subsequent_mask(4)
out = model(src, tgt, tgt_mask=tgt_mask)
loss = (out * torch.linspace(-1, 1, 8)).pow(2).mean()
loss.backward()
print(out.grad_fn, round(loss.item(), 4), model.decoder.layers[0].linear2.bias.grad)
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), num_layers=1).eval()
pad = torch.tensor([[False, False, False, True, True], [False] * 5])
with torch.no_grad():
    print(torch.backends.mha.get_fastpath_enabled(), enc(src, src_key_padding_mask=pad)[0])
""")

snippet("layer_class_names_in_hooks", """
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3))

def show(module, inputs, output):
    print(f"{module.__class__.__name__:8s} {tuple(inputs[0].shape)} -> {tuple(output.shape)}")

handles = [m.register_forward_hook(show) for m in model]
out = model(torch.randn(1, 1, 4, 4))
for h in handles:
    h.remove()
print(out.__class__.__name__, out.grad_fn.__class__.__name__, model.__class__ == nn.Sequential)
total = torch.zeros(3)
total.__iadd__(out.detach()[0])
print(total.__add__(1).shape, total.__len__())
""")

snippet("forward_mode_dual_numbers", """
import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([0.5, 1.0, 2.0])
direction = torch.tensor([1.0, 0.0, 0.0])
with fwAD.dual_level():
    dual = fwAD.make_dual(x, direction)
    y = torch.tanh(dual) * dual.exp()
    out = fwAD.unpack_dual(y)
    print(out.primal, out.tangent)
    primal, tangent = out
    print(tangent.shape, fwAD.unpack_dual(x).tangent)
""")

snippet("dtype_limits_linalg_and_transformer", """
import torch
import torch.nn as nn

print(torch.finfo(torch.float32).eps, torch.iinfo(torch.int64).max, torch.finfo(torch.float16))
x = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
ev = torch.linalg.eigh(x)
print(ev.eigenvalues, ev.eigenvectors.shape, type(torch.linalg.pinv(x).grad_fn).__name__)
print(torch.quantile(torch.tensor([1.0, 2.0, 3.0, 4.0]), 0.5), torch.argwhere(x > 1.5))
print(torch.arange(6.0).as_strided((2, 2), (1, 2)), torch.triu_indices(3, 3))
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0, batch_first=True)
out = layer(torch.randn(1, 3, 4))
out.sum().backward()
print(out.shape, type(out.grad_fn).__name__, layer.linear1.weight.grad.shape)
""")

snippet("plain_helper_class", """
import torch

class LinearModel:
    def __init__(self, n):
        torch.manual_seed(0)
        self.w = torch.randn(n, requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)

    def forward(self, x):
        return x @ self.w + self.b

    def parameters(self):
        return [self.w, self.b]

    @torch.no_grad()
    def step(self, lr):
        for p in self.parameters():
            p -= lr * p.grad
            p.grad = None

model = LinearModel(3)
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
y = torch.tensor([1.0, 0.0])
for epoch in range(3):
    loss = ((model.forward(x) - y) ** 2).mean()
    loss.backward()
    model.step(0.05)
    print(epoch, round(loss.item(), 4), model.w.requires_grad, model.__class__.__name__)
""")

snippet("cpu_only_build_device_errors", """
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, torch.backends.cudnn.is_available(), torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)
x = torch.ones(2, requires_grad=True, device=device)
for move in (lambda: x.cuda(), lambda: x.to("cuda:0"), lambda: nn.Linear(2, 1).cuda(),
             lambda: torch.zeros(2, device="cuda")):
    try:
        move()
    except AssertionError as e:
        print("AssertionError:", e)
try:
    F.cross_entropy(torch.zeros(2, 3), torch.tensor([[1], [0]]))
except RuntimeError as e:
    print("RuntimeError:", e)
relu = nn.ReLU(inplace=True)
relu.register_full_backward_hook(lambda m, gi, go: None)
try:
    relu(x * 1)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])
""")

snippet("generator_of_minibatches", """
import torch

torch.manual_seed(0)
X = torch.randn(10, 3)
y = X @ torch.tensor([1.0, -2.0, 0.5]) + 0.1

def batches(data, target, size):
    for start in range(0, len(data), size):
        yield data[start:start + size], target[start:start + size]

w = torch.zeros(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for epoch in range(3):
    total = 0.0
    for xb, yb in batches(X, y, 4):
        loss = ((xb @ w - yb) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, round(total, 4))
print(w)

def layers():
    yield from (torch.nn.Linear(3, 3), torch.nn.Tanh())
    yield torch.nn.Linear(3, 1)

model = torch.nn.Sequential(*layers())
print(model, sum(p.numel() for p in model.parameters()))
""")

snippet("sparse_coo_gradients", """
import torch

i = torch.tensor([[0, 1, 1], [2, 0, 2]])
v = torch.tensor([3.0, 4.0, 5.0])
s = torch.sparse_coo_tensor(i, v, (2, 3), requires_grad=True)
print(s, s.layout, s.is_sparse, s.sparse_dim(), s.dense_dim(), s._nnz())
d = torch.ones(3, 2, requires_grad=True)
y = torch.sparse.mm(s, d)
print(y)
y.sum().backward()
print(s.grad, s.grad.layout, d.grad)
c = s.coalesce()
print(c.indices(), c.values(), c.is_coalesced(), torch.sparse.sum(s, dim=1))
x = torch.tensor([[0., 2.], [3., 0.]], requires_grad=True)
(x.to_sparse() * 2).to_dense().sum().backward()
print(x.grad, torch.sparse.addmm(torch.zeros(2, 2), s, d).grad_fn)
try:
    s.exp()
except NotImplementedError as e:
    print(str(e)[:60])
""")

snippet("packed_sequences_through_an_lstm", """
import torch
import torch.nn as nn
import torch.nn.utils.rnn as rnn_utils
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence, PackedSequence

torch.manual_seed(0)
sentences = [torch.randn(n, 3) for n in (2, 5, 3)]
lengths = torch.tensor([len(s) for s in sentences])
padded = pad_sequence(sentences, batch_first=True)
print(padded.shape, lengths)
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
print(isinstance(packed, PackedSequence), packed.batch_sizes, packed.sorted_indices)
lstm = nn.LSTM(3, 4, batch_first=True)
out, (h, c) = lstm(packed)
unpacked, out_lengths = pad_packed_sequence(out, batch_first=True)
print(unpacked.shape, out_lengths, h.shape)
loss = unpacked.pow(2).sum() + h.sum()
loss.backward()
print(round(loss.item(), 4), lstm.weight_ih_l0.grad.shape)
print(rnn_utils.unpack_sequence(rnn_utils.pack_sequence([torch.tensor([1, 2]), torch.tensor([3])])))
data, batch_sizes, _, _ = rnn_utils.pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])])
print(data, batch_sizes)
""")

snippet("symmetric_weight_parametrization", """
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize

class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

torch.manual_seed(0)
layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
print(layer)
print(parametrize.is_parametrized(layer), [n for n, _ in layer.named_parameters()])
print(torch.equal(layer.weight, layer.weight.T))
layer(torch.ones(2, 3)).sum().backward()
print(layer.parametrizations.weight.original.grad)
parametrize.remove_parametrizations(layer, "weight")
print(type(layer).__name__, layer.weight.requires_grad)
""")

snippet("weight_norm_parametrizations", """
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm, spectral_norm, orthogonal

torch.manual_seed(0)
layer = weight_norm(nn.Linear(3, 2))
print(layer)
layer(torch.randn(4, 3)).sum().backward()
print(layer.parametrizations.weight.original0.grad)
print(spectral_norm(nn.Linear(3, 3)).weight)
q = orthogonal(nn.Linear(3, 3)).weight
print(torch.allclose(q @ q.T, torch.eye(3), atol=1e-5))
""")

snippet("embedding_bag_grid_sample_ctc", """
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
bag = nn.EmbeddingBag(10, 3, mode="mean")
out = bag(torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4]))
out.sum().backward()
print(out, bag.weight.grad[:3])
theta = torch.tensor([[[1.0, 0.1, 0.0], [0.0, 1.0, 0.2]]], requires_grad=True)
grid = F.affine_grid(theta, (1, 1, 3, 3), align_corners=False)
img = torch.arange(9.0).reshape(1, 1, 3, 3).requires_grad_()
F.grid_sample(img, grid, align_corners=False).sum().backward()
print(theta.grad, img.grad)
log_probs = torch.randn(5, 2, 4).log_softmax(2).detach().requires_grad_()
targets = torch.randint(1, 4, (2, 3))
loss = nn.CTCLoss()(log_probs, targets, torch.full((2,), 5), torch.full((2,), 3))
loss.backward()
print(loss, log_probs.grad[0])
""")

snippet("hooks_rescaling_gradients", """
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.exp() * 2
y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] / 2, None))
y.sum().backward()
print(x.grad)
torch.manual_seed(0)
layer = nn.Linear(3, 2)
layer.register_full_backward_hook(lambda module, grad_input, grad_output: (grad_input[0] * 0,))
layer.register_full_backward_pre_hook(lambda module, grad_output: (grad_output[0] * 3,))
inp = torch.ones(1, 3, requires_grad=True)
layer(inp).sum().backward()
print(inp.grad, layer.bias.grad)
z = torch.complex(torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([0.5, -1.0]))
z.register_hook(lambda g: g.conj())
(z * z).abs().sum().backward()
print(z.grad_fn.name())
""")

snippet("parametrization_right_inverse_and_legacy_norms", """
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P

class Scaled(nn.Module):
    def forward(self, X):
        return X * 2
    def right_inverse(self, W):
        return W / 2

torch.manual_seed(0)
layer = nn.Linear(2, 2)
P.register_parametrization(layer, "weight", Scaled())
layer.weight = torch.ones(2, 2)
print(layer.parametrizations.weight.original, layer.weight)
print(P.type_before_parametrizations(layer) == nn.Linear, type(layer).__name__)
with P.cached():
    print(layer.weight is layer.weight)
old = nn.utils.weight_norm(nn.Linear(3, 2))
print(sorted(n for n, _ in old.named_parameters()))
sn = nn.utils.spectral_norm(nn.Linear(3, 3))
print(sorted(sn.state_dict()))
sn.load_state_dict(sn.state_dict())
nn.utils.remove_spectral_norm(sn)
print(sorted(n for n, _ in sn.named_parameters()))
""")


snippet("format_builtin_and_init_fans", """
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(3, 5)
fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(layer.weight)
print(fan_in, fan_out, nn.init._calculate_correct_fan(layer.weight, "fan_out"))
x = torch.tensor([0.1, 0.2])
print(format(x[1].item(), ".1%"), format(3, "05d"), format(x.sum(), ".3f"), format(x.sum().item(), "e"))
""")


# Python learners write around PyTorch: special methods on their own classes, @property and @classmethod,
# their own decorators, nonlocal, `if __name__ == "__main__":`, their own exceptions, Counter/defaultdict/deque.

snippet("learner_module_property", """
import torch
import torch.nn as nn

class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(1))

    @property
    def scale(self):
        return self.log_scale.exp()

    def forward(self, x):
        return x * self.scale

s = Scaler()
y = s(torch.tensor([1.0, 2.0])).sum()
y.backward()
print(s.scale)
print(s.log_scale.grad)
""")

snippet("learner_plain_class_repr_call", """
import torch

class Counter:
    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x * 2

    def __repr__(self):
        return f"Counter(calls={self.calls})"

c = Counter()
for i in range(3):
    out = c(torch.tensor(float(i)))
print(c)
print(repr(c), str(c))
print(out)
""")

snippet("learner_classmethod_staticmethod", """
import torch

class Point:
    count = 0
    def __init__(self, x, y):
        self.x, self.y = x, y
        Point.count += 1

    @classmethod
    def origin(cls):
        return cls(0.0, 0.0)

    @staticmethod
    def dist(a, b):
        return ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5

    def as_tensor(self):
        return torch.tensor([self.x, self.y])

p = Point(3.0, 4.0)
o = Point.origin()
print(Point.dist(p, o), Point.count)
print(p.as_tensor() - o.as_tensor())
""")

snippet("learner_dunder_methods", """
import torch

class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)
    def __len__(self):
        return len(self.xs)
    def __getitem__(self, i):
        return self.xs[i]
    def __iter__(self):
        return iter(self.xs)
    def __add__(self, other):
        return Vec(*[a + b for a, b in zip(self, other)])
    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs
    def __repr__(self):
        return "Vec(" + ", ".join(map(str, self.xs)) + ")"
    def __contains__(self, v):
        return v in self.xs
    def __bool__(self):
        return bool(self.xs)

a = Vec(1, 2, 3)
b = Vec(10, 20, 30)
print(a + b, len(a), a[1], 2 in a, a == Vec(1, 2, 3), bool(Vec()))
print(torch.tensor(list(a + b)).float().mean())
""")

snippet("learner_dunder_eq_lt_sorted", """
class Item:
    def __init__(self, name, score):
        self.name = name
        self.score = score
    def __lt__(self, other):
        return self.score < other.score
    def __eq__(self, other):
        return self.name == other.name
    def __repr__(self):
        return f"Item({self.name!r}, {self.score})"

items = [Item("a", 3), Item("b", 1), Item("c", 2), Item("a", 9)]
print(sorted(items))
print(items.count(Item("a", 0)), Item("b", 5) in items)
print(max(items), min(items))
""")

snippet("learner_str_vs_repr_override", """
class Temp:
    def __init__(self, c):
        self.c = c
    def __str__(self):
        return f"{self.c:.1f}°C"
    def __repr__(self):
        return f"Temp({self.c})"

t = Temp(21.456)
print(t)
print([t])
print(f"{t} {t!r} {t!s}")
print("%s / %r" % (t, t))
""")

snippet("learner_class_with_counter_registry", """
REGISTRY = {}

def register(name):
    def deco(cls):
        REGISTRY[name] = cls
        return cls
    return deco

@register("sq")
class Square:
    def __call__(self, x):
        return x * x

@register("neg")
class Neg:
    def __call__(self, x):
        return -x

import torch
x = torch.tensor([1.0, 2.0])
for name in sorted(REGISTRY):
    print(name, REGISTRY[name]()(x))
""")

snippet("learner_class_context_manager", """
import torch

class Track:
    def __enter__(self):
        print("enter")
        return self
    def __exit__(self, exc_type, exc, tb):
        print("exit", exc_type.__name__ if exc_type else None)
        return exc_type is ValueError

with Track() as t:
    print(type(t).__name__)
with Track():
    raise ValueError("bad")
print("continued")
""")

snippet("learner_closures_counter", """
import torch

def make_counter():
    count = 0
    def inc():
        nonlocal count
        count += 1
        return count
    return inc

c = make_counter()
c(); c()
print(c())

def make_scaler(k):
    return lambda t: t * k
scalers = [make_scaler(k) for k in range(3)]
print([s(torch.tensor(2.0)).item() for s in scalers])
""")

snippet("learner_decorator_with_args", """
def repeat(n):
    def deco(fn):
        def wrapper(*a, **k):
            return [fn(*a, **k) for _ in range(n)]
        return wrapper
    return deco

@repeat(3)
def hello(name):
    return f"hi {name}"

print(hello("ada"))
""")

snippet("learner_main_function_guard", """
import torch

def main():
    x = torch.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    print("grad:", x.grad)
    return 0

if __name__ == "__main__":
    main()
""")

snippet("learner_custom_iterator_class", """
class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n + 1

print(list(Countdown(4)))
""")

snippet("learner_custom_exception", """
class ShapeError(Exception):
    def __init__(self, expected, got):
        super().__init__(f"expected {expected}, got {got}")
        self.expected = expected

import torch

def check(t, shape):
    if tuple(t.shape) != shape:
        raise ShapeError(shape, tuple(t.shape))
    return True

try:
    check(torch.ones(2, 3), (3, 2))
except ShapeError as e:
    print(type(e).__name__, e, e.expected)
print(check(torch.ones(1), (1,)))
""")

snippet("learner_deque_moving_average", """
from collections import deque
import torch
window = deque(maxlen=3)
torch.manual_seed(1)
for step, v in enumerate(torch.rand(6).tolist()):
    window.append(v)
    print(step, f"{sum(window) / len(window):.4f}")
window.rotate(1)
print(len(window), window.maxlen)
""")

snippet("learner_early_stopping_class", """
import torch

class EarlyStopping:
    def __init__(self, patience=2, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.best = float("inf")
        self.bad = 0

    def __call__(self, loss):
        if loss < self.best - self.min_delta:
            self.best, self.bad = loss, 0
        else:
            self.bad += 1
        return self.bad >= self.patience

stopper = EarlyStopping(patience=2)
for epoch, loss in enumerate([1.0, 0.8, 0.81, 0.79, 0.8, 0.85]):
    if stopper(loss):
        print(f"stop at epoch {epoch}, best {stopper.best}")
        break
""")

snippet("learner_metric_tracker_class", """
import torch
from collections import defaultdict

class Tracker:
    def __init__(self):
        self.data = defaultdict(list)
    def log(self, **kw):
        for k, v in kw.items():
            self.data[k].append(v.item() if isinstance(v, torch.Tensor) else v)
    def summary(self):
        return {k: round(sum(v) / len(v), 4) for k, v in self.data.items()}
    def __repr__(self):
        return f"Tracker({', '.join(sorted(self.data))})"

t = Tracker()
for i in range(3):
    t.log(loss=torch.tensor(1.0 / (i + 1)), step=i)
print(t, t.summary())
""")
