# title: A custom autograd.Function with its own backward
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x * x


z = torch.tensor([1.0, -2.0], requires_grad=True)
cubed = Cube.apply(z)
cubed.sum().backward()
print(z.grad)
