"""3-d convolution, pooling, unpooling, batch norm and interpolation (Conv3d, MaxPool3d, AvgPool3d,
adaptive pooling, BatchNorm3d, MaxUnpool3d, 5-d interpolate): programs run with torch and with the engine,
output compared (values, gradients, grad_fn names, saved attributes, reprs, seeded init, errors)."""

from __future__ import annotations

import pytest

from tests.engine.programs import CHAIN, TRY, assert_matches_torch

pytest.importorskip("torch")

PRELUDE = CHAIN + TRY + """
F = torch.nn.functional
def r(t, digits=5):  # rounded, for sums whose order differs (a zero's sign dropped)
    return None if t is None else [round(v, digits) + 0.0 for v in t.flatten().tolist()]
def exact(t):
    return None if t is None else [repr(v) for v in t.flatten().tolist()]
def saved(fn):
    return {a: (tuple(getattr(fn, a).shape) if hasattr(getattr(fn, a), 'shape') else getattr(fn, a))
            for a in sorted(dir(fn)) if a.startswith('_saved')}
def weights(y):
    # a deterministic grad_output whose values are the same in both libraries
    return (torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape) % 7 - 3) / 7
"""

PROGRAMS = {
    "conv3d_functional": """
torch.manual_seed(0)
for dtype in (torch.float32, torch.float64):
    x = torch.randn(2, 4, 5, 6, 5, dtype=dtype, requires_grad=True)
    for kw, wshape in [(dict(), (3, 4, 2, 3, 2)), (dict(stride=(1, 2, 2), padding=1), (3, 4, 3, 3, 3)),
                       (dict(dilation=(2, 1, 2), padding=(1, 0, 2), groups=2), (4, 2, 2, 2, 2)),
                       (dict(padding='same'), (2, 4, 2, 3, 2)), (dict(padding='valid', stride=2), (2, 4, 1, 2, 3)),
                       (dict(padding='same', dilation=2, groups=4), (4, 1, 3, 2, 3))]:
        w = torch.randn(*wshape, dtype=dtype, requires_grad=True)
        b = torch.randn(wshape[0], dtype=dtype, requires_grad=True)
        y = F.conv3d(x, w, b, **kw)
        d = 3 if dtype == torch.float32 else 8
        print(kw, tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn), r(y[0, 0, 0], d))
        gx, gw, gb = torch.autograd.grad(y, (x, w, b), weights(y))
        print(r(gx[0, 0, 0], d), r(gw[0], d), r(gb, d))
xu = torch.randn(4, 5, 6, 5, requires_grad=True)
w = torch.randn(3, 4, 2, 2, 2, requires_grad=True)
y = F.conv3d(xu, w, None, 1, 1)
print(tuple(y.shape), type(y.grad_fn).__name__, [type(n).__name__ for n, _ in y.grad_fn.next_functions])
y.sum().backward()
print(r(xu.grad[0, 0], 3), r(w.grad[0, 0], 3))
""",
    "conv_transpose3d": """
torch.manual_seed(1)
x = torch.randn(2, 4, 3, 4, 3, dtype=torch.float64, requires_grad=True)
for kw, wshape in [(dict(), (4, 2, 2, 2, 2)), (dict(stride=2, padding=1, output_padding=(1, 0, 1)), (4, 3, 3, 2, 3)),
                   (dict(stride=(1, 2, 3), groups=2, dilation=(2, 1, 1)), (4, 1, 2, 3, 2))]:
    w = torch.randn(*wshape, dtype=torch.float64, requires_grad=True)
    b = torch.randn(wshape[1] * kw.get('groups', 1), dtype=torch.float64, requires_grad=True)
    y = F.conv_transpose3d(x, w, b, **kw)
    print(kw, tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn), r(y[0, 0, 0], 8))
    gx, gw, gb = torch.autograd.grad(y, (x, w, b), weights(y))
    print(r(gx[0, 0, 0], 8), r(gw[0, 0], 8), r(gb, 8))
torch.manual_seed(2)
m = torch.nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1)
print(m, r(m.weight[0, 0, 0]), r(m.bias))
for size in [None, (5, 7, 5), (2, 2, 6, 8, 6), (6, 7, 6)]:
    y = m(x.float(), output_size=size)
    print(size, tuple(y.shape), r(y[0, 0, 0, 0]))
print(tuple(m(x[0].float()).shape))
""",
    "modules_repr_init": """
for make in [lambda: torch.nn.Conv3d(2, 4, 3), lambda: torch.nn.Conv3d(2, 4, (1, 2, 3), stride=(2, 1, 1), padding=1,
                                                                        dilation=2, groups=2, bias=False),
             lambda: torch.nn.Conv3d(2, 2, 3, padding='same', padding_mode='circular'),
             lambda: torch.nn.Conv3d(2, 2, 2, padding='valid'),
             lambda: torch.nn.ConvTranspose3d(2, 4, (1, 2, 3), stride=2, output_padding=1, groups=2, bias=False),
             lambda: torch.nn.ConvTranspose3d(3, 1, 2, dilation=(1, 2, 1)),
             lambda: torch.nn.MaxPool3d(2), lambda: torch.nn.MaxPool3d((1, 2, 3), 1, 0, 2, True, True),
             lambda: torch.nn.AvgPool3d(2), lambda: torch.nn.AvgPool3d((1, 2, 3), 1, 0, True, False, 3),
             lambda: torch.nn.AdaptiveAvgPool3d((1, None, 2)), lambda: torch.nn.AdaptiveMaxPool3d(2, True),
             lambda: torch.nn.BatchNorm3d(3), lambda: torch.nn.BatchNorm3d(3, momentum=None, affine=False),
             lambda: torch.nn.MaxUnpool3d(2), lambda: torch.nn.MaxUnpool3d((1, 2, 2), stride=1, padding=(0, 1, 0)),
             lambda: torch.nn.Upsample(scale_factor=2, mode='trilinear'),
             lambda: torch.nn.Upsample(size=(2, 3, 4), mode='nearest')]:
    torch.manual_seed(0)
    m = make()
    print(m, type(m).__name__)
    for name, p in m.named_parameters():
        print(' ', name, tuple(p.shape), exact(p.flatten()[:6]))
    for name, p in m.named_buffers():
        print(' ', name, exact(p))
    print(' ', sorted(k for k in vars(m) if not k.startswith('_')))
""",
    "conv3d_padding_modes": """
torch.manual_seed(3)
x = torch.randn(1, 2, 3, 4, 5, dtype=torch.float64, requires_grad=True)
for mode in ['zeros', 'reflect', 'replicate', 'circular']:
    for padding in [1, (1, 2, 0), 'same']:
        torch.manual_seed(4)
        m = torch.nn.Conv3d(2, 3, (2, 3, 3), padding=padding, padding_mode=mode).double()
        y = m(x)
        g, = torch.autograd.grad(y, x, weights(y))
        print(mode, padding, tuple(y.shape), type(y.grad_fn).__name__, r(y[0, 0, 0], 8), r(g[0, 0, 0], 8))
        print(' ', [type(n).__name__ for n, _ in y.grad_fn.next_functions])
""",
    "pool3d": """
torch.manual_seed(5)
for dtype in (torch.float32, torch.float64):
    x = torch.randn(2, 2, 5, 6, 7, dtype=dtype, requires_grad=True)
    for kw in [dict(kernel_size=2), dict(kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0)),
               dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=(2, 2, 3), dilation=(2, 1, 2)),
               dict(kernel_size=(3,), stride=(2,), padding=(1,))]:
        y, i = F.max_pool3d(x, return_indices=True, **kw)
        print('max', kw, tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn))
        g, = torch.autograd.grad(y, x, weights(y))
        print(' ', exact(y[0, 1, 0]), i[0, 1].flatten().tolist()[:12], exact(g[1, 0, 1]))
    for kw in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
               dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
               dict(kernel_size=(2, 3, 1), stride=1, divisor_override=4), dict(kernel_size=(2,), padding=(1,))]:
        y = F.avg_pool3d(x, **kw)
        print('avg', kw, tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn))
        g, = torch.autograd.grad(y, x, weights(y))
        print(' ', exact(y[0, 1, 0]), exact(g[1, 0, 1]))
xu = torch.randn(2, 4, 4, 4, requires_grad=True)
y = torch.nn.MaxPool3d(2, 1)(xu)
y.sum().backward()
print(tuple(y.shape), exact(y[0, 0]), exact(xu.grad[0, 0]))
print(exact(torch.nn.AvgPool3d(2, padding=1)(xu)[1, 0]))
y, i = F.max_pool3d_with_indices(xu, 2)
print(exact(y), i.flatten().tolist())
nan = torch.tensor([[[[1., float('nan')], [3., 4.]], [[float('-inf'), 2.], [0., float('nan')]]]])
print(F.max_pool3d(nan, 2, return_indices=True))
print(F.max_pool3d(torch.arange(8).reshape(1, 2, 2, 2), 2), F.avg_pool3d(torch.ones(1, 2, 2, 2, dtype=torch.float64), 2))
""",
    "pool3d_double_backward": """
torch.manual_seed(6)
x = torch.randn(1, 2, 4, 4, 4, dtype=torch.float64, requires_grad=True)
for f in [lambda x: F.max_pool3d(x, 2), lambda x: F.avg_pool3d(x, 3, 1, 1, count_include_pad=False),
          lambda x: F.adaptive_avg_pool3d(x, (2, 3, 1)), lambda x: F.adaptive_max_pool3d(x, 3),
          lambda x: F.interpolate(x, scale_factor=1.5, mode='trilinear'), lambda x: F.interpolate(x, size=(3, 5, 4)),
          lambda x: F.interpolate(x, size=(3, 5, 7), mode='nearest-exact'),
          lambda x: F.conv3d(x, torch.ones(1, 2, 2, 2, 2, dtype=torch.float64) / 3, padding=1)]:
    y = f(x)
    v = weights(y).requires_grad_()
    gx, = torch.autograd.grad(y, x, v, create_graph=True)
    chain(gx)
    gg, = torch.autograd.grad((gx * x).sum() + (gx ** 2).sum(), v)
    print(r(gg.flatten()[:8], 10))
""",
    "adaptive_pool3d": """
torch.manual_seed(7)
for dtype in (torch.float32, torch.float64):
    x = torch.randn(2, 2, 5, 7, 6, dtype=dtype, requires_grad=True)
    for size in [(2, 3, 4), 3, (1, None, 2), (5, 7, 6), (7, 9, 10), 1]:
        y = F.adaptive_avg_pool3d(x, size)
        g, = torch.autograd.grad(y, x, weights(y))
        show = exact if size != 1 else r  # a mean over the whole volume: summed in another order
        print('avg', size, tuple(y.shape), type(y.grad_fn).__name__, show(y[1, 0, 0]), show(g[0, 1, 2]))
        y, i = F.adaptive_max_pool3d(x, size, return_indices=True)
        print('max', size, tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn).keys())
        g, = torch.autograd.grad(y, x, weights(y))
        print(' ', exact(y[1, 0, 0]), i[1, 0].flatten().tolist()[:10], exact(g[0, 1, 2]))
xu = torch.randn(3, 4, 5, 6)
print(tuple(torch.nn.AdaptiveAvgPool3d((2, 2, 2))(xu).shape), exact(torch.nn.AdaptiveMaxPool3d(2)(xu)[0]))
print(F.adaptive_max_pool3d_with_indices(xu, 1)[1].flatten().tolist())
print(F.interpolate(xu[None], size=(2, 3, 4), mode='area').grad_fn, exact(F.interpolate(xu[None], scale_factor=0.5, mode='area')[0, 0]))
""",
    "unpool3d": """
torch.manual_seed(8)
x = torch.randn(2, 2, 4, 5, 6, dtype=torch.float64, requires_grad=True)
y, i = F.max_pool3d(x, 2, return_indices=True)
for kw in [dict(output_size=(5, 5, 7)), dict(output_size=(2, 2, 4, 5, 6)), dict(stride=(2, 3, 2), output_size=(4, 5, 6))]:
    z = F.max_unpool3d(y, i, 2, **kw)
    print(kw, tuple(z.shape), type(z.grad_fn).__name__, saved(z.grad_fn))
    g, = torch.autograd.grad(z, x, weights(z), retain_graph=True)
    print(' ', exact(z[0, 0, 0]), exact(g[0, 0, 0]))
m = torch.nn.MaxUnpool3d(2)
print(m, tuple(m(y[0], i[0], output_size=(4, 5, 6)).shape), tuple(m(y, i, output_size=[5, 5, 7]).shape))
v = y.detach().requires_grad_()
z = F.max_unpool3d(v, i, 2, output_size=(4, 5, 6))
gv, = torch.autograd.grad(z, v, weights(z).requires_grad_(), create_graph=True)
chain(gv)
""",
    "batchnorm3d": """
torch.manual_seed(9)
m = torch.nn.BatchNorm3d(3)
x = torch.randn(2, 3, 2, 3, 4, dtype=torch.float64, requires_grad=True)
m = m.double()
for step in range(2):
    y = m(x)
    g, = torch.autograd.grad(y, x, weights(y))
    print(type(y.grad_fn).__name__, r(y[0, 0, 0], 8), r(g[1, 2, 1], 8), r(m.running_mean, 8), r(m.running_var, 8),
          m.num_batches_tracked)
m.eval()
y = m(x)
print(type(y.grad_fn).__name__, r(y[1, 1, 1], 8))
c = torch.nn.BatchNorm3d(3, momentum=None, track_running_stats=True)
c(x.float()); c(x.float() * 2)
print(r(c.running_mean), r(c.running_var), c.num_batches_tracked)
print(c.state_dict().keys())
""",
    "interpolate_5d": """
torch.manual_seed(10)
for dtype in (torch.float32, torch.float64):
    x = torch.randn(2, 2, 3, 4, 5, dtype=dtype, requires_grad=True)
    for kw in [dict(scale_factor=2), dict(size=(5, 3, 7)), dict(scale_factor=(1.5, 0.5, 2.3)),
               dict(scale_factor=2, mode='trilinear'), dict(size=(5, 3, 7), mode='trilinear', align_corners=True),
               dict(scale_factor=(1.7, 2.2, 0.6), mode='trilinear'),
               dict(scale_factor=(1.7, 2.2, 0.6), mode='trilinear', recompute_scale_factor=True),
               dict(size=(4, 7, 9), mode='nearest-exact'), dict(scale_factor=1.3, mode='nearest-exact'),
               dict(size=(2, 3, 3), mode='area'), dict(size=(3, 4, 5), mode='trilinear'), dict(size=1, mode='trilinear')]:
        y = F.interpolate(x, **kw)
        print(kw, tuple(y.shape), type(y.grad_fn).__name__, saved(y.grad_fn))
        g, = torch.autograd.grad(y, x, weights(y))
        print(' ', exact(y[1, 0, 0]), exact(g[0, 1]))
u = torch.arange(2 * 2 * 3 * 3, dtype=torch.uint8).reshape(1, 2, 2, 3, 3)
print(F.interpolate(u, scale_factor=(1, 2, 1.5))[0, 1, 1], F.interpolate(u, size=(3, 2, 2), mode='nearest-exact').shape)
m = torch.nn.Upsample(scale_factor=(2, 1, 2), mode='trilinear', align_corners=False)
print(m, exact(m(x.detach()[:1, :1, :1, :2])))
""",
    "errors": """
x = torch.randn(2, 3, 4, 5, 6)
for f in [lambda: F.conv3d(torch.randn(3, 4, 5), torch.randn(2, 3, 1, 1, 1)),
          lambda: F.conv3d(x, torch.randn(2, 3, 1, 1)),
          lambda: F.conv3d(x, torch.randn(2, 3, 5, 1, 1)),
          lambda: F.conv3d(x, torch.randn(2, 4, 1, 1, 1)),
          lambda: F.conv3d(x, torch.randn(2, 3, 1, 1, 1), torch.randn(3)),
          lambda: F.conv3d(x, torch.randn(2, 3, 2, 2, 2), stride=(1, 2)),
          lambda: F.conv3d(x, torch.randn(2, 3, 2, 2, 2), stride=2, padding='same'),
          lambda: F.conv3d(x, torch.randn(2, 3, 2, 2, 2), padding='full'),
          lambda: F.conv3d(x, torch.randn(2, 3, 2, 2, 2, dtype=torch.float64)),
          lambda: F.conv_transpose3d(x, torch.randn(3, 2, 2, 2, 2), output_padding=2),
          lambda: F.conv_transpose3d(x, torch.randn(3, 2, 2, 2, 2), stride=2, output_padding=(1, 2, 1)),
          lambda: F.conv_transpose3d(x, torch.randn(4, 2, 2, 2, 2)),
          lambda: F.conv_transpose3d(x, torch.randn(3, 2, 2, 2, 2), padding='same'),
          lambda: F.max_pool3d(x, 2, padding=2), lambda: F.max_pool3d(x, (2, 2)),
          lambda: F.max_pool3d(x, 2, stride=(1, 2)), lambda: F.max_pool3d(x, 2, padding=(1, 1)),
          lambda: F.max_pool3d(x, 2, dilation=(1, 1)), lambda: F.max_pool3d(x, 5), lambda: F.max_pool3d(x, 0),
          lambda: F.max_pool3d(x, 2, stride=0), lambda: F.max_pool3d(x, 2, dilation=0),
          lambda: F.max_pool3d(x[0, 0], 2), lambda: F.max_pool3d(torch.randn(2, 0, 3, 3, 3), 2),
          lambda: F.max_pool3d(torch.randn(3, 3, 0, 3), 1), lambda: F.max_pool3d(x, 2, padding=-1),
          lambda: F.max_pool3d(x, (4, 4, 4), padding=(2, 1, 2)),
          lambda: F.avg_pool3d(x, 2, padding=2), lambda: F.avg_pool3d(x, (2, 2)), lambda: F.avg_pool3d(x, 5),
          lambda: F.avg_pool3d(x, 2, padding=(1, 1)), lambda: F.avg_pool3d(x[0, 0], 2),
          lambda: F.avg_pool3d(x[0, 0, 0], 2), lambda: F.avg_pool3d(x, 2, divisor_override=0),
          lambda: F.avg_pool3d(x, 0), lambda: F.avg_pool3d(x, 2, stride=0), lambda: F.avg_pool3d(x, 2, stride=(1, 2)),
          lambda: F.avg_pool3d(x, 2, padding=-1), lambda: F.avg_pool3d(torch.randn(2, 3, 0, 3, 3), 1),
          lambda: F.avg_pool3d(x, (5, 6, 6), stride=1, padding=(2, 3, 3)),
          lambda: F.adaptive_avg_pool3d(x, (2, 2)), lambda: F.adaptive_avg_pool3d(x[0, 0], 2),
          lambda: F.adaptive_avg_pool3d(torch.randn(2, 0, 3, 3, 3), 2), lambda: F.adaptive_max_pool3d(x, (2, 2)),
          lambda: F.adaptive_max_pool3d(x[0, 0], 2), lambda: F.adaptive_max_pool3d(torch.randn(2, 0, 3, 3, 3), 2),
          lambda: torch.nn.BatchNorm3d(3)(x[0]), lambda: torch.nn.BatchNorm3d(4)(x),
          lambda: F.max_unpool3d(x, torch.zeros(2, 3, 4, 5, 6, dtype=torch.long), 2, output_size=(1, 2)),
          lambda: F.max_unpool3d(x, torch.full((2, 3, 4, 5, 6), 10 ** 6), 2),
          lambda: F.max_unpool3d(x, torch.zeros(2, 3, 4, 5, 6, dtype=torch.long), 2, output_size=(20, 10, 12)),
          lambda: F.max_unpool3d(x[0, 0], torch.zeros(4, 5, 6, dtype=torch.long), 2),
          lambda: F.interpolate(x, scale_factor=2, mode='bilinear'), lambda: F.interpolate(x, scale_factor=2, mode='bicubic'),
          lambda: F.interpolate(x, scale_factor=0.1), lambda: F.interpolate(x[0, 0], scale_factor=2, mode='trilinear'),
          lambda: F.interpolate(x, scale_factor=2, mode='trilinear', antialias=True),
          lambda: F.interpolate(x, size=(2, 3), mode='trilinear'),
          lambda: F.interpolate(torch.ones(1, 0, 2, 2, 2), scale_factor=2),
          lambda: F.interpolate(x.long(), scale_factor=2), lambda: F.interpolate(x.byte(), scale_factor=2, mode='trilinear'),
          lambda: torch.nn.ConvTranspose3d(2, 3, 2, padding_mode='reflect'),
          lambda: torch.nn.ConvTranspose3d(3, 3, 2)(x, output_size=(1, 2)),
          lambda: torch.nn.ConvTranspose3d(3, 3, 2, stride=2)(x, output_size=(20, 10, 12)),
          lambda: torch.nn.Conv3d(3, 3, 2, padding='same', stride=2), lambda: torch.nn.Conv3d(3, 4, 2, groups=2),
          lambda: torch.nn.Conv3d(3, 3, 2, padding='full')]:
    t(lambda: tuple(f().shape))
""",
    "cnn3d_training_step": """
torch.manual_seed(11)
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv3d(1, 4, 3, padding=1), torch.nn.BatchNorm3d(4), torch.nn.ReLU(),
            torch.nn.MaxPool3d(2), torch.nn.Conv3d(4, 6, (1, 3, 3), padding=(0, 1, 1)), torch.nn.ReLU(),
            torch.nn.AvgPool3d(2, ceil_mode=True), torch.nn.AdaptiveAvgPool3d(1))
        self.up = torch.nn.Upsample(scale_factor=2, mode='trilinear')
        self.head = torch.nn.Linear(6, 3)
    def forward(self, x):
        h = self.features(x)
        return self.head(torch.flatten(h + self.up(h)[..., :1, :1, :1], 1))
net = Net()
print(net)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(4, 1, 6, 8, 8)
target = torch.tensor([0, 2, 1, 2])
for step in range(3):
    opt.zero_grad()
    out = net(x)
    loss = F.cross_entropy(out, target)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), r(net.features[0].weight.grad[0, 0, 0]), r(net.head.bias))
print(type(out.grad_fn).__name__, r(net.features[1].running_mean), net.features[1].num_batches_tracked)
chain(loss)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_torch(name: str) -> None:
    assert_matches_torch(PRELUDE + PROGRAMS[name])
