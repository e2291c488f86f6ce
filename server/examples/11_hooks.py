# title: Hooks see (and can change) gradients on their way
import torch

m = torch.tensor([1.0, 2.0], requires_grad=True)
n = m * 2
n.register_hook(lambda g: g * 10)   # scales what flows into n's grad_fn
total = (n * n).sum()
total.backward()
print(m.grad)
