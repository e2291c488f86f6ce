# title: Backward from a vector needs a gradient argument
import torch

v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
u = v ** 2
weights = torch.tensor([1.0, 0.1, 0.01])
u.backward(gradient=weights)   # a vector-Jacobian product
print(v.grad)
