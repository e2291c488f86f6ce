# title: Higher-order gradients with create_graph=True
import torch

s = torch.tensor(1.0, requires_grad=True)
f = s ** 4
(df,) = torch.autograd.grad(f, s, create_graph=True)   # 4 s³, itself differentiable
(d2f,) = torch.autograd.grad(df, s)                     # 12 s²
print(df.item(), d2f.item())
