# title: Matrix multiply: grad @ Wᵀ and Xᵀ @ grad
import torch

X = torch.tensor([[1.0, 2.0], [0.0, -1.0]], requires_grad=True)
W = torch.tensor([[0.5, 1.0, -1.0], [2.0, 0.0, 1.0]], requires_grad=True)
Y = X @ W
Y.sum().backward()
print(X.grad)
print(W.grad)
