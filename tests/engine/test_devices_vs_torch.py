"""Devices on a CPU-only build: CUDA/XPU/MPS tensors, modules and torch.cuda queries fail with PyTorch's
errors; the CPU and the usual `torch.device("cuda" if torch.cuda.is_available() else "cpu")` idiom work."""

from __future__ import annotations

import pytest

from tests.engine.programs import RUN, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = RUN + """
x = torch.ones(2, requires_grad=True)
lin = torch.nn.Linear(2, 1)
"""

SNIPPETS = {
    "device_arguments": """
for n, c in [
 ("cuda()", lambda: x.cuda()),
 ("cuda(0)", lambda: x.cuda(0)),
 ("cuda(device=1)", lambda: x.cuda(device=1)),
 ("to cuda", lambda: x.to("cuda")),
 ("to cuda:0", lambda: x.to("cuda:0")),
 ("to device= cuda:0", lambda: x.to(device="cuda:0")),
 ("to torch.device", lambda: x.to(torch.device("cuda"))),
 ("to cuda dtype", lambda: x.to("cuda", torch.float64)),
 ("to cuda non_blocking", lambda: x.to("cuda", non_blocking=True)),
 ("to int 0", lambda: x.to(0)),
 ("to cpu", lambda: x.to("cpu") is x),
 ("cpu", lambda: x.cpu() is x),
 ("to cpu dtype", lambda: x.to("cpu", torch.float64)),
 ("to mps", lambda: x.to("mps")),
 ("to xpu", lambda: x.to("xpu")),
 ("zeros cuda", lambda: torch.zeros(2, device="cuda")),
 ("zeros cuda dev", lambda: torch.zeros(2, device=torch.device("cuda", 0))),
 ("zeros cpu", lambda: torch.zeros(2, device="cpu")),
 ("tensor cuda", lambda: torch.tensor([1.0], device="cuda")),
 ("randn cuda", lambda: torch.randn(2, device="cuda")),
 ("ones_like cuda", lambda: torch.ones_like(x, device="cuda")),
 ("arange cuda", lambda: torch.arange(3, device="cuda")),
 ("empty cuda", lambda: torch.empty(3, device="cuda")),
 ("full cuda", lambda: torch.full((2,), 1.0, device="cuda")),
 ("eye cuda", lambda: torch.eye(2, device="cuda")),
 ("linspace cuda", lambda: torch.linspace(0, 1, 3, device="cuda")),
 ("rand cuda", lambda: torch.rand(2, device="cuda")),
 ("randint cuda", lambda: torch.randint(0, 3, (2,), device="cuda")),
 ("zeros device 0", lambda: torch.zeros(2, device=0)),
 ("new_zeros cuda", lambda: x.new_zeros(2, device="cuda")),
 ("as_tensor cuda", lambda: torch.as_tensor([1.0], device="cuda")),
 ("from_numpy.cuda", lambda: torch.from_numpy(__import__('numpy').ones(2)).cuda()),
 ("mod cuda", lambda: lin.cuda()),
 ("mod cuda 0", lambda: lin.cuda(0)),
 ("mod to cuda", lambda: lin.to("cuda")),
 ("mod to device", lambda: lin.to(torch.device("cuda"))),
 ("mod to device=", lambda: lin.to(device="cuda")),
 ("mod to cpu", lambda: lin.to("cpu") is lin),
 ("mod to mps", lambda: lin.to("mps")),
 ("mod cpu", lambda: lin.cpu() is lin),
 ("mod to cuda dtype", lambda: lin.to("cuda", torch.float64)),
 ("empty mod cuda", lambda: torch.nn.ReLU().cuda()),
 ("empty mod to cuda", lambda: torch.nn.ReLU().to("cuda")),
 ("mod to bad", lambda: lin.to("gpu")),
 ("tensor to bad", lambda: x.to("gpu")),
 ("device bad", lambda: torch.device("gpu")),
 ("is_available", lambda: torch.cuda.is_available()),
 ("device_count", lambda: torch.cuda.device_count()),
 ("current_device", lambda: torch.cuda.current_device()),
 ("get_device_name", lambda: torch.cuda.get_device_name(0)),
 ("synchronize", lambda: torch.cuda.synchronize()),
 ("empty_cache", lambda: torch.cuda.empty_cache()),
 ("memory_allocated", lambda: torch.cuda.memory_allocated()),
 ("cuda.manual_seed", lambda: torch.cuda.manual_seed(0)),
 ("cuda.manual_seed_all", lambda: torch.cuda.manual_seed_all(0)),
 ("mps avail", lambda: torch.backends.mps.is_available()),
 ("mps built", lambda: torch.backends.mps.is_built()),
 ("cudnn", lambda: torch.backends.cudnn.is_available()),
 ("cudnn det", lambda: setattr(torch.backends.cudnn, "deterministic", True)),
 ("cudnn bench", lambda: setattr(torch.backends.cudnn, "benchmark", False)),
 ("x.device", lambda: x.device),
 ("x.is_cuda", lambda: x.is_cuda),
 ("x.get_device", lambda: x.get_device()),
 ("idiom", lambda: torch.device("cuda" if torch.cuda.is_available() else "cpu")),
 ("idiom2", lambda: torch.device("cuda:0" if torch.cuda.is_available() else "cpu")),
 ("mps idiom", lambda: torch.device("mps" if torch.backends.mps.is_available() else "cpu")),
 ("device type", lambda:
    (torch.device("cuda").type, torch.device("cuda:1").index, str(torch.device("cuda", 1)))),
]:
    run(n, c)
""",
    "device_idiom_training_step": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1)).to(device)
xb = torch.randn(5, 3, device=device)
yb = torch.randn(5, 1).to(device)
loss = torch.nn.functional.mse_loss(model(xb), yb)
loss.backward()
print(device, xb.device, loss, model[0].weight.grad.device, loss.detach().cpu().numpy().dtype)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.cuda.manual_seed_all(0)
print(torch.backends.cudnn.deterministic, torch.cuda.is_available(), torch.cuda.device_count())
torch.backends.cudnn.deterministic = False  # both modules' flags are process-wide: leave them as found
try:
    model.cuda()
except AssertionError as e:
    print("AssertionError:", e)
try:
    torch.nn.Linear(2, 2, device="cuda")
except AssertionError as e:
    print("AssertionError:", e)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_program_output_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + SNIPPETS[name])
