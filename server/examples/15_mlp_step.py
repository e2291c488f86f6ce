# title: A tiny MLP: one training step with nn.Linear, cross-entropy and SGD
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2))
inputs = torch.tensor([[0.5, -1.0], [1.5, 0.2]])
labels = torch.tensor([1, 0])
opt = torch.optim.SGD(model.parameters(), lr=0.1)

opt.zero_grad()
logits = model(inputs)
loss = nn.functional.cross_entropy(logits, labels)
loss.backward()
opt.step()
print(round(loss.item(), 4))
print(model[0].weight.grad)
