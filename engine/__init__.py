"""A NumPy autograd engine with PyTorch's semantics: `import engine as torch` runs PyTorch snippets."""

from __future__ import annotations

from engine import methods as _methods  # noqa: F401 - attaches Tensor methods
from engine import autograd, backends, cuda, linalg, nn, optim, utils
from engine.creation import (
    arange, as_tensor, bernoulli, poisson, empty, multinomial, empty_like, eye, from_numpy, full, full_like, linspace, logspace, normal,
    ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like, randperm, scalar_tensor,
    tensor, zeros, zeros_like,
)
from engine.random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from engine.dtypes import (
    bool_ as bool,  # noqa: A001
    device,
    dtype,
    bfloat16, float16, float32, float64, int8, int16, int32, int64, uint8,
)
from engine.dtypes import complex64, complex128  # noqa: E402
from engine.complex_ops import (  # noqa: E402
    angle, complex, conj, conj_physical, imag, is_conj, polar, real, resolve_conj, view_as_complex, view_as_real,
)
from engine.functions import (  # noqa: A004 - PyTorch's names shadow builtins on purpose
    abs, acos, add, addmm, all, allclose, amax, amin, any, arccos, arcsin, arctan, argmax, argmin,
    argsort, asin, atan, bmm, cat, ceil, chunk, clamp, clamp_max, clamp_min, clip, clone, concat,
    concatenate, contiguous, cos, cosh, count_nonzero, cumprod, cumsum, detach, diag, diag_embed, diagonal, div, dot, einsum, eq,
    equal,
    erf, exp, exp2, expand, expm1, fix, flatten, flip, floor, floor_divide, fmod, frac, gather, ge,
    ger, gt, hstack, index_select, isclose, isfinite, isinf, isnan, le, log, log10, log1p, log2,
    log_softmax, logical_and, logical_not, logical_or, logsumexp, lt, masked_fill, matmul, max,
    maximum, mean, median, min, minimum, mm, msort, mul, mv, nanmean, nanmedian, nansum, narrow, ne, neg,
    nonzero, norm, outer, permute, pow,
    prod, reciprocal, relu, remainder, repeat, reshape, round, rsqrt, select, sigmoid, sign, silu,
    roll, sin, sinh, softmax, sort, split, sqrt, square, squeeze, stack, std, std_mean, sub, sum, t,
    take_along_dim,
    tan, tanh, transpose, tril, triu, trunc, unbind, unsqueeze, var, var_mean, vstack, where,
)
from engine.functions import div as divide, mul as multiply, sub as subtract, neg as negative
from engine.functions import (
    broadcast_shapes, broadcast_tensors, broadcast_to, nan_to_num, scatter, scatter_add, topk, trace,
)
from engine.functions import (  # noqa: E402
    addcdiv, addcmul, arctan2, atan2, baddbmm, deg2rad, digamma, dist, erfinv, hypot, lerp, lgamma, logaddexp,
    logit, polygamma, rad2deg, sgn, signbit, sinc, square_, xlogy,
)
from engine.functions import (  # noqa: E402
    atleast_1d, atleast_2d, atleast_3d, cartesian_prod, column_stack, diagflat, dstack, fliplr, flipud,
    index_add, index_copy, index_fill, index_put, index_put_, masked_scatter, masked_select, meshgrid,
    moveaxis, movedim, put, ravel, repeat_interleave, rot90, scatter_reduce, swapaxes, swapdims, take,
    tensor_split, tile, unflatten, unsafe_chunk, unsafe_split,
)
from engine.functions import (  # noqa: E402
    aminmax, bincount, bucketize, corrcoef, cov, cummax, cummin, diff, histc, histogram, kthvalue, logcumsumexp, mode,
    searchsorted, trapezoid, trapz, unique, unique_consecutive,
)
from engine.functions import cumulative_trapezoid  # noqa: E402
from engine.functions import (  # noqa: E402
    cdist, cross, det, inner, inverse, kron, logdet, matrix_power, mkldnn_rnn_layer, slogdet, tensordot, vdot,
)
from engine.functions import addmv, block_diag, matrix_exp, pinverse, vander  # noqa: E402
from engine.functions import qr  # noqa: E402
from engine.functions import cholesky  # noqa: E402
from engine.functions import lu, lu_solve, lu_unpack  # noqa: E402
from engine.functions import index_reduce  # noqa: E402
from engine.autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from engine.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from engine.printing import set_printoptions
from engine.serialization import load, save
from engine.tensor import Parameter, Size, Tensor

half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

__version__ = "2.13.0"

# PyTorch computes nan/inf silently; NumPy would warn on 0/0, log(0), overflow.
import numpy as _np  # noqa: E402

_np.seterr(divide="ignore", invalid="ignore", over="ignore", under="ignore")


def get_default_dtype() -> dtype:
    from engine import dtypes as _dtypes

    return _dtypes.default_float


def set_default_dtype(d: dtype) -> None:
    from engine import dtypes as _dtypes

    _dtypes.default_float = d


def is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input.numel()


def result_type(tensor: object, other: object) -> dtype:
    """The dtype an elementwise op of two operands (tensors or Python numbers) computes in."""
    from engine import dtypes as _dtypes

    operands = [x._data if isinstance(x, Tensor) else x for x in (tensor, other)]
    return _dtypes.from_numpy(_dtypes.result_type_np(operands))


def promote_types(type1: dtype, type2: dtype) -> dtype:
    from engine import dtypes as _dtypes

    return _dtypes.from_numpy(_dtypes.promote_np(type1.np, type2.np))


def can_cast(from_: dtype, to: dtype) -> bool:  # PyTorch names the first parameter `from`
    from engine import dtypes as _dtypes

    return _dtypes.can_cast(from_.np, to.np)

from engine.nn.functional import _vf_alpha_dropout as alpha_dropout, _vf_alpha_dropout_ as alpha_dropout_  # noqa: E402
from engine.nn.functional import _vf_dropout as dropout, _vf_dropout_ as dropout_  # noqa: E402
from engine.nn.functional import _vf_feature_alpha_dropout as feature_alpha_dropout  # noqa: E402
from engine.nn.functional import _vf_feature_alpha_dropout_ as feature_alpha_dropout_  # noqa: E402
from engine.nn.functional import _vf_feature_dropout as feature_dropout, _vf_feature_dropout_ as feature_dropout_  # noqa: E402
from engine.nn.functional import conv_transpose1d, conv_transpose2d  # noqa: E402

from engine.nn import modules as _nn_modules  # noqa: E402,F401 - torch.nn.modules.module (global module hooks)

from engine import outarg as _outarg  # noqa: E402

_outarg.install(globals())  # out= on the functions that take it in PyTorch

from engine import distributions  # noqa: E402 - needs the names above
from engine import func  # noqa: E402
from engine.func import vmap  # noqa: E402
from engine.functions import _dirichlet_grad, _sample_dirichlet, _standard_gamma, _standard_gamma_grad  # noqa: E402
from engine.bitwise import (  # noqa: E402
    bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, logical_xor,
)
from engine.more_math import copysign, erfc, fmax, fmin, heaviside, i0  # noqa: E402
from engine import special  # noqa: E402 - torch.special
from engine.methods import layout, strided  # noqa: E402
from engine.extra_ops import (  # noqa: E402
    argwhere, as_strided, dsplit, hsplit, isin, nanquantile, narrow_copy, quantile, renorm, tril_indices,
    triu_indices, vsplit,
)
from engine.extra_ops import (  # noqa: E402
    diagonal_scatter, float_power, frexp, ldexp, logaddexp2, select_scatter, slice_scatter, true_divide,
)
from engine.extra_ops import combinations, gradient  # noqa: E402
from engine.functions import vstack as row_stack  # noqa: E402
from engine.info import (  # noqa: E402
    channels_last, channels_last_3d, contiguous_format, finfo, iinfo, memory_format, preserve_format,
)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    return input.is_complex()


from engine.sparse_coo import sparse_coo, sparse_coo_tensor  # noqa: E402
from engine import sparse  # noqa: E402 - torch.sparse
from engine.param_ops import _weight_norm, geqrf, norm_except_dim  # noqa: E402
from engine.param_ops import householder_product as _householder_product  # noqa: E402
linalg.householder_product = _householder_product
from engine.grid_sample import affine_grid_generator, grid_sampler  # noqa: E402


from engine import inplace_forms as _inplace_forms  # noqa: E402

_inplace_forms.install(globals())  # x.ceil_(), torch.relu_(x), ...
from engine.functions import acosh, arccosh, arcsinh, arctanh, asinh, atanh  # noqa: E402
from engine import aliases as _aliases  # noqa: E402

_aliases.install(globals())  # torch.greater_equal, torch.positive, torch.svd, x.is_nonzero() ...
from engine import legacy_tensors as _legacy_tensors  # noqa: E402

_legacy_tensors.install(globals())  # torch.Tensor([1, 2]), torch.FloatTensor(2, 3), isinstance(x, torch.LongTensor)
from engine import numpy_names as _numpy_names  # noqa: E402

_numpy_names.install(globals())  # x.max(axis=1), torch.stack(ts, axis=1)
from engine import size_keywords as _size_keywords  # noqa: E402

_size_keywords.install(globals())  # torch.randn(size=(2, 3)), x.view(size=(3, 2)), x.permute(dims=(1, 0))
from engine.compare_ops import gcd, lcm, nextafter  # noqa: E402
from engine.nn.more_functional import pdist  # noqa: E402


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: object = None) -> Tensor:
    from engine.nn import more_functional

    return more_functional.rrelu(input, lower, upper, training, generator=generator)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator: object = None) -> Tensor:
    from engine.nn import more_functional

    return more_functional.rrelu(input, lower, upper, training, True, generator)
from engine.nn.functional import pairwise_distance  # noqa: E402
from engine.creation import range_ as range  # noqa: E402,A004 - torch.range (deprecated, warns)
from engine.tensor import refuse_writes as _refuse_writes  # noqa: E402

_refuse_writes()  # t.shape = ... raises as in PyTorch; t.my_name = ... is a program's own attribute
from engine import meta as _meta  # noqa: E402

_meta.install(globals())  # torch.empty(2, 3, device='meta'), torch.empty_like(x, device='meta')
from engine import dtype_args as _dtype_args  # noqa: E402

_dtype_args.install(globals())  # torch.zeros(2, dtype=np.float32) raises PyTorch's TypeError
from engine import missing_args as _missing_args  # noqa: E402

_missing_args.install(globals())  # torch.cumsum(x), x.gather(1): PyTorch's missing-argument TypeErrors
from engine import fft  # noqa: E402 - torch.fft
from engine import dim_args as _dim_args  # noqa: E402

_dim_args.install(globals())  # x.argmax(dim=(0, 1)), torch.cumsum(x, None): PyTorch's "must be int" errors
