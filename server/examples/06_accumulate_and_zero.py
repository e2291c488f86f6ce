# title: .grad accumulates across calls until you zero it
import torch

k = torch.tensor(2.0, requires_grad=True)
for step in range(3):
    loss = k * k * k
    loss.backward()
    print(step, k.grad)
k.grad.zero_()
print(k.grad)
