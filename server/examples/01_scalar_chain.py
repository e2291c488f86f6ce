# title: A scalar chain: y = x·x + sin(x)
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x + torch.sin(x)
y.backward()
print(x.grad)  # 2x + cos(x) = 4 + cos(2)
