# title: no_grad and detach: values without a graph
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
tracked = w * 2
with torch.no_grad():
    untracked = w * 2
frozen = tracked.detach()
print(tracked.requires_grad, untracked.requires_grad, frozen.requires_grad)
loss = (tracked * frozen).sum()   # frozen is a constant here
loss.backward()
print(w.grad)
