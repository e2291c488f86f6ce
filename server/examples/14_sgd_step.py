# title: Fitting a line: loss, backward, SGD step
import torch

xs = torch.tensor([0.0, 1.0, 2.0, 3.0])
ys = torch.tensor([1.0, 3.0, 5.0, 7.0])
slope = torch.tensor(0.0, requires_grad=True)
bias = torch.tensor(0.0, requires_grad=True)
opt = torch.optim.SGD([slope, bias], lr=0.05)
for epoch in range(3):
    opt.zero_grad()
    pred = slope * xs + bias
    loss = ((pred - ys) ** 2).mean()
    loss.backward()
    opt.step()
    print(epoch, round(loss.item(), 4))
