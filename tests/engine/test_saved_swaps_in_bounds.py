"""A tensor saved for backward swapped for one of another shape (a saved_tensors_hooks unpack hook, or the
`cloned` dict of allow_mutation_on_saved_tensors) never makes a backward formula read past an array: the
convolution weight gradient built its windows from the gradient's shape over the swapped input."""

from __future__ import annotations

import numpy as np
import pytest

import engine as torch
import engine.nn.functional as F

_STRIDED = np.lib.stride_tricks.as_strided


@pytest.fixture
def outside_views(monkeypatch):
    """Every view as_strided makes that reaches past the memory of the array it views."""
    found: list = []

    def checked(x, shape=None, strides=None, subok=False, writeable=True):
        view = _STRIDED(x, shape, strides, subok=subok, writeable=writeable)
        root = np.asarray(x)
        while isinstance(root.base, np.ndarray):
            root = root.base
        if view.size and root.flags.owndata:
            low, high = np.lib.array_utils.byte_bounds(view)
            root_low, root_high = np.lib.array_utils.byte_bounds(root)
            if low < root_low or high > root_high:
                found.append((shape, strides, x.shape))
        return view

    monkeypatch.setattr(np.lib.stride_tricks, "as_strided", checked)
    return found


@pytest.mark.parametrize("conv,x_shape,w_shape,small,kw", [
    (F.conv2d, (2, 2, 8, 8), (2, 2, 3, 3), (2, 2, 2, 2), {"padding": 1}),
    (F.conv1d, (1, 1, 4096), (1, 1, 3), (1, 1, 8), {"dilation": 2}),
    (F.conv3d, (1, 1, 6, 6, 6), (1, 1, 2, 2, 2), (1, 1, 1, 1, 1), {"stride": 2}),
])
def test_swapped_convolution_input_is_refused(outside_views, conv, x_shape, w_shape, small, kw):
    x = torch.randn(*x_shape)
    w = torch.randn(*w_shape, requires_grad=True)
    swap = torch.zeros(*small)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: swap if tuple(t.shape) == x_shape else t):
        y = conv(x, w, **kw)
    with pytest.raises(RuntimeError, match="convolution windows do not fit the input"):
        y.sum().backward()
    assert w.grad is None
    assert outside_views == []


def test_swapped_through_allow_mutation_context_is_refused(outside_views):
    with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        x = torch.randn(1, 1, 4096)
        w = torch.randn(1, 1, 3, requires_grad=True)
        y = F.conv1d(x, w)
        for handle in list(ctx.original):
            if tuple(ctx.original[handle].shape) == (1, 1, 4096):
                ctx.cloned[handle] = torch.zeros(1, 1, 4)
        with pytest.raises(RuntimeError, match="convolution windows do not fit the input"):
            y.sum().backward()
    assert outside_views == []


def test_unswapped_convolutions_and_pools_still_work(outside_views):
    x = torch.randn(1, 2, 7, 7, requires_grad=True)
    w = torch.randn(3, 2, 3, 3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        y = F.conv2d(x, w, stride=2, padding=1, dilation=2)
        z = F.max_pool2d(x, 3, 2, 1, ceil_mode=True) + F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)
    (y.sum() + z.sum()).backward()
    assert w.grad.shape == (3, 2, 3, 3) and x.grad.shape == (1, 2, 7, 7)
    assert outside_views == []
