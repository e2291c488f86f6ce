# title: In-place ops move grad_fn on, and a view follows its base
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1          # MulBackward0
v = y.view(2)      # shares y's memory: ViewBackward0
y.mul_(10)         # y._version 0 -> 1, new grad_fn
# reading v.grad_fn rebuilds it on y's new node
print(type(y.grad_fn).__name__, type(v.grad_fn).__name__)
loss = v.sum()
loss.backward()
print(x.grad)      # tensor([10., 10.])
