# title: Backward twice: retain_graph, and the error without it
import torch

p = torch.tensor(1.5, requires_grad=True)
q = p * p
q.backward(retain_graph=True)
print(p.grad)
q.backward()                   # the graph was kept, so this works and adds
print(p.grad)
q.backward()                   # now the saved tensors are gone
