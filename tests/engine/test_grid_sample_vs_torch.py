"""F.affine_grid and F.grid_sample (bilinear and nearest; zeros, border and reflection padding; both align_corners;
4-d and 5-d): values, grad_fns and saved attributes, gradients to input, grid and theta, the double backward
node, warnings and errors compared with PyTorch."""

from __future__ import annotations

import pytest

from tests.engine.programs import CHAIN, TRY, assert_matches_torch

torch = pytest.importorskip("torch")

PRELUDE = CHAIN + TRY + """
F = torch.nn.functional
"""

PROGRAM = """torch.manual_seed(0)
theta = torch.randn(2, 2, 3, requires_grad=True)
for ac in (False, True):
    g = F.affine_grid(theta, (2, 1, 3, 4), align_corners=ac)
    print(g, g.grad_fn, g.grad_fn._saved_size, g.grad_fn._saved_align_corners)
    (g * torch.arange(48.).view(2, 3, 4, 2)).sum().backward(); print(theta.grad); theta.grad = None
x = torch.randn(2, 3, 4, 5, requires_grad=True)
grid = (torch.rand(2, 3, 2, 2) * 2.6 - 1.3).requires_grad_()
grid2 = torch.tensor([[[[-1., -1.], [1., 1.], [0., 0.], [1.5, -0.3]], [[-1.2, 0.9], [0.25, 0.5], [-0.75, 1.0], [0.6, -1.0]]]] * 2, requires_grad=True)
for gr in (grid, grid2):
    for mode in ('bilinear', 'nearest'):
        for pm in ('zeros', 'border', 'reflection'):
            for ac in (False, True):
                o = F.grid_sample(x, gr, mode=mode, padding_mode=pm, align_corners=ac)
                print(mode, pm, ac, o, o.grad_fn._saved_interpolation_mode, o.grad_fn._saved_padding_mode)
                (o * torch.linspace(-1, 1, o.numel()).view(o.shape)).sum().backward()
                print(x.grad, gr.grad); x.grad = None; gr.grad = None
o = F.grid_sample(x, grid, align_corners=False)
chain(o)
gx, gg = torch.autograd.grad(o.pow(2).sum(), (x, grid), create_graph=True)
print(gx.grad_fn, gg.grad_fn, gx.grad_fn is gg.grad_fn)
chain(gx)
print([v.round(decimals=3) for v in torch.autograd.grad((gx.sin().sum() + gg.cos().sum()), (x, grid))])
o = F.grid_sample(x, F.affine_grid(theta, (2, 3, 2, 3), align_corners=False), align_corners=False)
chain(o)
o.sum().backward(); print(theta.grad)
theta3 = torch.randn(1, 3, 4, requires_grad=True)
g3 = F.affine_grid(theta3, (1, 2, 2, 3, 4), align_corners=True); print(g3.round(decimals=5) + 0, g3.grad_fn)
x3 = torch.randn(1, 2, 2, 3, 4, requires_grad=True)
o3 = F.grid_sample(x3, g3, align_corners=True); print(o3.round(decimals=4) + 0, o3.grad_fn)
o3.sum().backward(); print(x3.grad.round(decimals=4) + 0, theta3.grad.round(decimals=3) + 0)
o3 = F.grid_sample(x3, g3.detach() * 0.7, mode='nearest', padding_mode='reflection', align_corners=False); print(o3.round(decimals=5) + 0)
t(lambda: F.grid_sample(x, grid.double(), align_corners=True))
t(lambda: F.grid_sample(x, torch.rand(3, 2, 2, 2), align_corners=True))
t(lambda: F.grid_sample(x, torch.rand(2, 2, 2, 3), align_corners=True))
t(lambda: F.grid_sample(x, torch.rand(2, 2, 2, 2, 2), align_corners=True))
t(lambda: F.grid_sample(x, grid, mode='x'))
t(lambda: F.grid_sample(x, grid, padding_mode='x'))
t(lambda: F.grid_sample(torch.randn(1, 2, 3, 4, 5), torch.rand(1, 2, 2, 2, 3), mode='bicubic', align_corners=True))
t(lambda: F.grid_sample(torch.zeros(2, 2, 0, 4), grid, align_corners=True))
t(lambda: F.affine_grid(torch.rand(1, 2, 3), (1, 1, 2), align_corners=True))
t(lambda: F.affine_grid(torch.rand(1, 3, 3), (1, 1, 2, 2), align_corners=True))
t(lambda: F.affine_grid(torch.rand(1, 3, 3), (1, 1, 2, 2, 2), align_corners=True))
t(lambda: F.affine_grid(torch.ones(1, 2, 3, dtype=torch.long), (1, 1, 2, 2), align_corners=True))
t(lambda: F.affine_grid(torch.rand(1, 2, 3), (1, 1, 0, 2), align_corners=False))
t(lambda: F.affine_grid(torch.rand(1, 2, 3), (1, 1, 1, 2), align_corners=True))
t(lambda: F.affine_grid(torch.rand(1, 2, 3), torch.Size([1, 1, 2, 2])).shape)
t(lambda: F.grid_sample(x, grid))
t(lambda: F.grid_sample(x.long(), grid.long(), align_corners=True))
"""


def test_grid_sample_matches_torch() -> None:
    assert_matches_torch(PRELUDE + PROGRAM)
