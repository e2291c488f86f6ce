# title: Leaves get .grad, intermediates don't (unless retain_grad)
import torch

w = torch.tensor([0.5, -1.0], requires_grad=True)
h = w * 3
h.retain_grad()          # ask for the intermediate's gradient too
out = (h * h).sum()
out.backward()
print(w.is_leaf, h.is_leaf)
print(w.grad, h.grad)
