# title: One value, two paths: gradients add up
import torch

a = torch.tensor(3.0, requires_grad=True)
b = a * a        # used twice below
c = b + a
d = b * 2
loss = c + d     # d loss / d a = 2a + 1 + 4a
loss.backward()
print(a.grad)
