# title: Broadcasting: gradients are summed back to each shape
import torch

col = torch.tensor([[1.0], [2.0]], requires_grad=True)    # shape (2, 1)
row = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)  # shape (3,)
grid = col * row                                             # shape (2, 3)
grid.sum().backward()
print(col.grad)   # summed over the broadcast columns
print(row.grad)   # summed over the broadcast rows
