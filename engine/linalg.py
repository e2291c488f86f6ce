"""torch.linalg: determinants, inverses, solves, norms, SVD and cross products with PyTorch's nodes."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from engine import dtypes
from engine import functions as f
from engine import ops
from engine.rules import apply
from engine.tensor import Tensor

__all__ = ["LinAlgError", "cross", "det", "inv", "inv_ex", "matrix_norm", "matrix_power", "norm", "slogdet",
           "solve", "svd", "svdvals", "vector_norm", "vecdot", "cholesky", "cholesky_ex", "solve_triangular",
           "eigh", "eigvalsh", "eig", "eigvals", "pinv", "matrix_exp", "multi_dot", "qr", "lstsq", "cond",
           "matrix_rank", "tensorinv", "tensorsolve",
           "lu_factor", "lu_factor_ex", "lu", "lu_solve", "solve_ex"]


class _LinAlgError(RuntimeError):
    "torch.linalg.LinAlgError: a matrix the operation cannot handle (a singular one)."


_LinAlgError.__module__ = "torch._C"
LinAlgError = _LinAlgError

SlogdetResult = f._named_result("linalg_slogdet", ("sign", "logabsdet"))
InvExResult = f._named_result("linalg_inv_ex", ("inverse", "info"))
SvdResult = f._named_result("linalg_svd", ("U", "S", "Vh"))
CholeskyExResult = f._named_result("linalg_cholesky_ex", ("L", "info"))
EighResult = f._named_result("linalg_eigh", ("eigenvalues", "eigenvectors"))
EigResult = f._named_result("linalg_eig", ("eigenvalues", "eigenvectors"))
QrResult = f._named_result("linalg_qr", ("Q", "R"))
TorchQrResult = f._named_result("qr", ("Q", "R"))
LuFactorResult = f._named_result("linalg_lu_factor", ("LU", "pivots"))
LuFactorExResult = f._named_result("linalg_lu_factor_ex", ("LU", "pivots", "info"))
LuResult = f._named_result("linalg_lu", ("P", "L", "U"))
LuUnpackResult = f._named_result("lu_unpack", ("P", "L", "U"))
LuWithInfoResult = f._named_result("_lu_with_info", ("LU", "pivots", "info"))
SolveExResult = f._named_result("linalg_solve_ex", ("result", "info"))
LstsqResult = f._named_result("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _check_floating(name: str, A: Tensor) -> None:
    "PyTorch's refusal of integer and bool inputs to linalg functions (norms, decompositions)."
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.legacy}")


def _check_matrices(name: str, A: Tensor, square: bool = True) -> None:
    "PyTorch's checks of a (batch of) matrices: floating dtype, at least 2 dims, square."
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.legacy}")
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    rows, cols = A._data.shape[-2:]
    if square and rows != cols:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {rows} by {cols} "
                           "matrices")


def det(A: Tensor) -> Tensor:
    _check_matrices("linalg.det", A)
    return apply(ops.LINALG_DET, (A,))[0]


def slogdet(A: Tensor) -> Any:
    _check_matrices("linalg.slogdet", A)
    sign, logabsdet = apply(ops.LINALG_SLOGDET, (A,))[:2]
    return SlogdetResult(sign, logabsdet)


def inv_ex(A: Tensor, *, check_errors: bool = False) -> Any:
    _check_matrices("linalg.inv", A)
    inverse, info = apply(ops.LINALG_INV_EX, (A,))
    if check_errors:
        _raise_if_singular(info._data)
    return InvExResult(inverse, info)


def _raise_if_singular(info: np.ndarray) -> None:
    bad = info[info > 0]
    if bad.size:
        raise _LinAlgError(f"linalg.inv: The diagonal element {int(bad.flat[0])} is zero, the inversion "
                           "could not be completed because the input matrix is singular.")


def inv(A: Tensor) -> Tensor:
    return inv_ex(A, check_errors=True)[0]


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    "X with A X = B (X A = B when left is False); B may be a vector or a batch of them."
    result, info = _solve(A, B, left)
    if np.any(info._data > 0):
        raise _LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    return result


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> Any:
    "solve and LAPACK's info (the singular matrices' solutions are inf and nan unless check_errors raises)."
    result, info = _solve(A, B, left)
    if check_errors and np.any(info._data > 0):
        raise _LinAlgError("torch.linalg.solve_ex: The solver failed because the input matrix is singular.")
    return SolveExResult(result, info)


def _solve(A: Tensor, B: Tensor, left: bool) -> tuple:
    _check_matrices("linalg.solve", A)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.legacy} and B of type {B.dtype.legacy} instead")
    a, b = A._data.shape, B._data.shape
    vector = ops._is_vector_rhs(a, b)
    matrix = (b[-1], 1) if vector else b[-2:]  # a vector is solved as a one-column matrix
    if matrix[0 if left else 1] != a[-1]:
        shown = f"{matrix[0]}x{matrix[1]}"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a[-2]}x{a[-1]} and {shown})")
    result, _, _, info = apply(ops.LINALG_SOLVE, (A, B), {"left": left})
    return result, info


def matrix_power(A: Tensor, n: int) -> Tensor:
    "A^n by repeated squaring (A's inverse for negative n), as PyTorch records it."
    _check_matrices("linalg.matrix_power", A)
    if n == 0:
        out = f.clone(A)
        eye = np.broadcast_to(np.eye(A._data.shape[-1], dtype=A._data.dtype), A._data.shape)
        return f.copy_(out, f._constant(np.array(eye)))
    a = inv(A) if n < 0 else A
    n = abs(n)
    if n == 1:
        return a if a is not A else f.clone(A)
    if n == 2:
        return f.matmul(a, a)
    if n == 3:
        return f.matmul(f.matmul(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else f.matmul(z, z)
        if bit:
            result = z if result is None else f.matmul(result, z)
    return result


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = f._wrap_dim(dim, input._data.ndim)
    sizes = (input._data.shape[d], other._data.shape[d])
    if sizes != (3, 3):
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {sizes[0]} and "
                           f"{sizes[1]}")
    f._check_broadcast(input, other)
    return apply(ops.LINALG_CROSS, (input, other), {"dim": dim})


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    return f.sum(f.mul(x, y), dim)


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> Any:
    _check_matrices("linalg.svd", A, square=False)
    return SvdResult(*apply(ops.LINALG_SVD, (A,), _svd_attrs(A, full_matrices)))


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    _check_matrices("linalg.svd", A, square=False)
    return apply(ops.LINALG_SVD, (A,), _svd_attrs(A, False))[1]


def _svd_attrs(A: Tensor, full_matrices: bool) -> dict:
    "The SVD's attrs, with the number of singular values its node keeps (S.size(-1))."
    return {"full_matrices": full_matrices, "S_sym_argsize_minus_1": min(A._data.shape[-2:])}


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    _check_floating("linalg.vector_norm", x)
    if dtype is not None:
        wanted = dtypes.to_numpy(dtype)
        if dtypes.promote_np(x._data.dtype, wanted) != wanted:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({x.dtype.legacy}) should be "
                               f"convertible without narrowing to the specified dtype ({dtype.legacy})")
        x = x.to(dtype)
    dims = f._optional_dims(dim, x._data.ndim)
    return apply(ops.NORM, (x,), {"ord": ord, "dim": dims, "keepdim": keepdim})


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    "Frobenius, nuclear, 1-, inf- and 2-norms of matrices over the two dims."
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _check_floating("linalg.matrix_norm", A)
    if dtype is not None:
        A = A.to(dtype)
    dims = [f._wrap_dim(d, A._data.ndim) for d in dim]
    if isinstance(ord, str):
        if ord == "fro":
            return vector_norm(A, 2, tuple(dims), keepdim)
        if ord == "nuc":
            return _singular_reduction(A, dims, keepdim, f.sum)
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    value = float(ord)
    if abs(value) not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    extreme = f.amax if value > 0 else f.amin
    if abs(value) == 2.0:
        return _singular_reduction(A, dims, keepdim, extreme)
    if math.isinf(value):
        dims.reverse()
    if not keepdim and dims[0] < dims[1]:
        dims[1] -= 1
    return extreme(vector_norm(A, 1.0, (dims[0],), keepdim), dims[1], keepdim)


def _singular_reduction(A: Tensor, dims: list, keepdim: bool, reduce: Any) -> Tensor:
    "reduce(svdvals) over the matrix dims moved to the end (nuclear norm, 2-norm)."
    order = [d for d in range(A._data.ndim) if d not in dims] + dims
    result = reduce(svdvals(f.permute(A, *order)), -1, keepdim)
    if keepdim:
        result = f.permute(f.unsqueeze(result, -1), *np.argsort(order).tolist())
    return result


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    "A vector norm, or a matrix norm when ord is given for two dims (or for a 2-D input without dim)."
    dims = None if dim is None else (tuple(dim) if isinstance(dim, (tuple, list)) else (dim,))
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    if dims is None and ord is not None and A._data.ndim not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A._data.ndim}D.")
    if isinstance(ord, str):
        return matrix_norm(A, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    if ord is not None and ((dims is not None and len(dims) == 2) or (dims is None and A._data.ndim == 2)):
        return matrix_norm(A, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(A, 2.0 if ord is None else ord, dims, keepdim, dtype=dtype)


def cross_default_dim(input: Tensor) -> int:
    "torch.cross without dim: the first dim of size 3 (deprecated, with PyTorch's warning)."
    warnings.warn(
        "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
        "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with "
        "that of linalg.cross in a future release. (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)", UserWarning, stacklevel=3)
    for d, size in enumerate(input._data.shape):
        if size == 3:
            return d
    raise RuntimeError("no dimension of size 3 in input")


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    _check_matrices("linalg.cholesky", A)
    L, info = apply(ops.LINALG_CHOLESKY_EX, (A,), {"upper": upper})
    if check_errors:
        raise_if_not_positive_definite(info._data)
    return CholeskyExResult(L, info)


def raise_if_not_positive_definite(info: np.ndarray, name: str = "linalg.cholesky") -> None:
    """PyTorch's error for the first matrix whose Cholesky factorization failed (LAPACK's `info`)."""
    bad = np.argwhere(info.reshape(-1) > 0)
    if bad.size:
        k = int(bad[0, 0])
        where = f"(Batch element {k}): " if info.ndim else ""
        raise _LinAlgError(f"{name}: {where}The factorization could not be completed because the input is "
                           f"not positive-definite (the leading minor of order {int(info.reshape(-1)[k])} is not "
                           "positive-definite).")


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    return cholesky_ex(A, upper=upper, check_errors=True)[0]


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    "X with A X = B (X A = B when left is False) for a triangular A."
    if B._data.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    _check_matrices("linalg.solve_triangular", A)
    a, b = A._data.shape, B._data.shape
    if (b[-2] if left else b[-1]) != a[-1]:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a[-2]}x{a[-1]} and {b[-2]}x{b[-1]})")
    return apply(ops.LINALG_SOLVE_TRIANGULAR, (A, B), {"upper": upper, "left": left, "unitriangular": unitriangular})


def eigh(A: Tensor, UPLO: str = "L") -> Any:  # noqa: N803
    "Eigenvalues (ascending) and eigenvectors of symmetric matrices, from the triangle UPLO names."
    _check_eigh("linalg.eigh", A, UPLO)
    return EighResult(*apply(ops.LINALG_EIGH, (A,), {"UPLO": UPLO}))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    "The eigenvalues of eigh (its node, saving the eigenvectors, when A requires grad)."
    _check_eigh("linalg.eigh", A, UPLO)
    return apply(ops.LINALG_EIGH, (A,), {"UPLO": UPLO})[0]


def _check_eig(name: str, A: Tensor) -> None:
    """linalg.eig's checks: a float or complex dtype (it has a complex counterpart), square matrices."""
    if A.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f'"linalg_eig_out_cpu" not implemented for \'{A.dtype.legacy}\'')
    A.dtype.to_complex()
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    rows, cols = A._data.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {rows} by {cols} matrices")


def eig(A: Tensor) -> Any:
    "Eigenvalues and unit eigenvectors of square matrices, complex, in LAPACK's (geev's) order."
    _check_eig("linalg.eig", A)
    return EigResult(*apply(ops.LINALG_EIG, (A,), {"real_input": A._data.dtype.kind != "c"}))


def eigvals(A: Tensor) -> Tensor:
    "The eigenvalues of eig (its node, saving the eigenvectors, when A requires grad)."
    _check_eig("linalg.eigvals", A)
    return apply(ops.LINALG_EIG, (A,), {"real_input": A._data.dtype.kind != "c"})[0]


def _check_eigh(name: str, A: Tensor, UPLO: str) -> None:
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if A._data.dtype.kind != "f":
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{A.dtype.legacy}\'')
    _check_matrices(name, A)


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    "The pseudoinverse: SVD (eigh when hermitian) dropping singular values up to max(atol, rtol * largest)."
    if A._data.ndim < 2 or A._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.pinv({A.dtype.legacy}{{{list(A._data.shape)}}}): expected a tensor with 2 or "
                           "more dimensions of float, double, cfloat or cdouble types")
    if hermitian:
        _check_matrices("linalg.pinv", A)
    tols = {key: (value._data if isinstance(value, Tensor) else value) for key, value in
            (("atol", atol), ("rtol", rtol)) if value is not None}
    return apply(ops.LINALG_PINV, (A,), {**tols, "hermitian": hermitian} if tols or hermitian else None)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    "torch.pinverse: pinv with rtol = rcond."
    return pinv(input, atol=0.0, rtol=rcond)


def matrix_exp(A: Tensor) -> Tensor:
    _check_matrices("linalg.matrix_exp", A)
    return apply(ops.LINALG_MATRIX_EXP, (A,))


def multi_dot(tensors: Any) -> Tensor:
    "The product of a chain of matrices (the first and last may be vectors), multiplied in the cheapest order."
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    dims = [t._data.ndim for t in tensors]
    if dims[0] not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {dims[0]}D")
    if dims[-1] not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {dims[-1]}D")
    for i in range(1, n - 1):
        if dims[i] != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {dims[i]}D")
    dtype = tensors[0]._data.dtype
    for i, t in enumerate(tensors[1:], 1):
        if t._data.dtype != dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{tensors[0].dtype.cpp} and tensor {i} {t.dtype.cpp}")
    mats = [f.unsqueeze(tensors[0], 0) if dims[0] == 1 else tensors[0], *tensors[1:-1],
            f.unsqueeze(tensors[-1], 1) if dims[-1] == 1 else tensors[-1]]
    for i in range(n - 1):
        a, b = mats[i]._data.shape, mats[i + 1]._data.shape
        if a[1] != b[0]:
            shape_a = list(tensors[i]._data.shape)
            shape_b = list(tensors[i + 1]._data.shape)
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {shape_a} and {shape_b} cannot be "
                               "multiplied")
    out_shape = [s for s, keep in ((mats[0]._data.shape[0], dims[0] == 2), (mats[-1]._data.shape[1], dims[-1] == 2))
                 if keep]
    if n == 2:
        result = f.mm(mats[0], mats[1])
    elif n == 3:
        a, b = mats[0]._data.shape[0], mats[1]._data.shape[0]
        c, d = mats[2]._data.shape
        if a * c * (b + d) < b * d * (a + c):
            result = f.mm(f.mm(mats[0], mats[1]), mats[2])
        else:
            result = f.mm(mats[0], f.mm(mats[1], mats[2]))
    else:
        result = _chain(mats, _chain_order([m._data.shape[0] for m in mats] + [mats[-1]._data.shape[1]]), 0, n - 1)
    return f.view(result, out_shape)


def _chain_order(p: list) -> list:
    "The matrix-chain dynamic programme: where each sub-chain splits."
    n = len(p) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(mats: list, split: list, i: int, j: int) -> Tensor:
    if i == j:
        return mats[i]
    k = split[i][j]
    return f.mm(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def qr(A: Tensor, mode: str = "reduced") -> Any:
    "Q with orthonormal columns and upper-triangular R, A = QR (mode 'reduced', 'complete' or 'r')."
    return QrResult(*_qr(A, mode))


def _qr(A: Tensor, mode: str) -> tuple:
    if A._data.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.qr: Expected a floating point or complex tensor as input. Got {A.dtype.legacy}")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    return apply(ops.LINALG_QR, (A,), {"mode": mode})


def torch_qr(input: Tensor, some: bool = True) -> Any:
    "torch.qr (deprecated, warning once): linalg.qr in mode 'reduced' (some) or 'complete'."
    _warn_once("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
               "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = "
               "torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else "
               "'complete') (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
               "BatchLinearAlgebra.cpp:2505.)")
    return TorchQrResult(*_qr(input, "reduced" if some else "complete"))


def torch_cholesky(input: Tensor, upper: bool = False) -> Tensor:
    "torch.cholesky (deprecated, warning once): linalg.cholesky's factor, or its conjugate transpose when upper."
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
               "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)"
               "\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
               "This transform will produce equivalent results for all valid (symmetric positive definite) inputs. "
               "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)")
    if input._data.ndim < 2:
        raise RuntimeError("cholesky: The input tensor A must have at least 2 dimensions.")
    rows, cols = input._data.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"cholesky: A must be batches of square matrices, but they are {rows} by {cols} matrices")
    if input._data.dtype.kind != "f" or input._data.dtype.itemsize < 4 or input.dtype.legacy == "BFloat16":
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{input.dtype.legacy}'")
    return apply(ops.CHOLESKY, (input,), {"upper": bool(upper)})


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: str | None = None) -> Any:
    "The least-squares solution of AX = B (driver gelsy unless named), with residuals, rank and singular values."
    a, b = A._data, B._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {A.dtype.legacy} and other's dtype {B.dtype.legacy}")
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    vector = ops._is_vector_rhs(a.shape, b.shape)
    if not vector and not (0 <= a.ndim - b.ndim <= 1):
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    if (b.shape[-1] if vector else b.shape[-2]) != a.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})")
    if a.dtype.kind != "f":
        raise RuntimeError("This function doesn't handle types other than float and double")
    driver = "gelsy" if driver is None else driver
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if driver == "gels" and a.size:
        m, n = a.shape[-2:]
        # gels stops where R's diagonal is zero; rounding decides that for LAPACK: a relative threshold here
        r = np.abs(np.diagonal(np.linalg.qr((a if m >= n else np.swapaxes(a, -1, -2)).astype(np.float64), mode="r"),
                               axis1=-2, axis2=-1))
        zero = r <= float(np.finfo(a.dtype).eps) * max(m, n) * np.max(r, axis=-1, keepdims=True)
        if zero.any():
            flat = zero.reshape(-1, zero.shape[-1])
            code = int(np.argmax(flat[np.argmax(flat.any(-1))])) + 1
            raise _LinAlgError("torch.linalg.lstsq: The least squares solution could not be computed because the input "
                               f"matrix does not have full rank (error code: {code}).")
    attrs = {"driver": driver}
    if rcond is not None:
        attrs["rcond"] = rcond
    return LstsqResult(*apply(ops.LINALG_LSTSQ, (A, B), attrs))


def cond(A: Tensor, p: Any = None) -> Tensor:
    "The condition number: largest / smallest singular value (p None, ±2), else norm(A, p) * norm(inv(A), p)."
    if A._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if isinstance(p, str):
        _check_matrices(f"linalg.cond(ord={p})", A)
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
        if p == "nuc":
            s = svdvals(A)
            return f.sum(s, -1) * f.sum(f.reciprocal(s), -1)
        return _cond_from_inverse(A, p)
    value = 2.0 if p is None else float(p)
    if abs(value) not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {_number_text(p)}")
    if abs(value) == 2.0:
        s = svdvals(A)
        top, bottom = f.narrow(s, -1, 0, 1), f.narrow(s, -1, s._data.shape[-1] - 1, 1)
        return f.squeeze(f.div(bottom, top) if value < 0 else f.div(top, bottom), -1)
    _check_matrices(f"linalg.cond(ord={_number_text(p)})", A)
    return _cond_from_inverse(A, p)


def _number_text(p: Any) -> str:
    if isinstance(p, float) and math.isinf(p):
        return "inf" if p > 0 else "-inf"
    return str(int(p)) if float(p).is_integer() else str(p)


def _cond_from_inverse(A: Tensor, p: Any) -> Tensor:
    "norm(A) * norm(A^-1), a singular A's inverse filled with inf; nan (0 * inf) read as inf."
    inverse, info = inv_ex(A)
    singular = (info._data > 0)[..., None, None]
    from engine import methods

    methods._masked_fill_(inverse, np.broadcast_to(singular, inverse._data.shape), math.inf)
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    return f._inplace(result, ops.NAN_TO_NUM, (), {"nan": math.inf, "posinf": math.inf, "neginf": -math.inf})


def matrix_rank(A: Tensor, tol: Any = None, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    "How many singular values (|eigenvalues| when hermitian) exceed max(atol, rtol * the largest)."
    if A._data.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if A._data.dtype.kind != "f":
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    a = A._data
    atol = atol._data if isinstance(atol, Tensor) else atol
    rtol = rtol._data if isinstance(rtol, Tensor) else rtol
    if rtol is None:
        rtol = 0.0 if atol is not None and np.any(np.asarray(atol) > 0) else float(np.finfo(a.dtype).eps) * max(
            a.shape[-2:])
    atol = 0.0 if atol is None else atol
    if a.size == 0:
        return f._constant(np.zeros(a.shape[:-2], np.int64))
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    s = s.astype(a.dtype)
    top = np.max(s, axis=-1, keepdims=True)
    tol_ = np.maximum(np.asarray(atol)[..., None] if np.ndim(atol) else atol,
                      (np.asarray(rtol)[..., None] if np.ndim(rtol) else rtol) * top)
    return f._constant(np.sum(s > tol_, axis=-1).astype(np.int64))


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    "The inverse of A read as a prod(shape[:ind]) x prod(shape[ind:]) matrix, shaped shape[ind:] + shape[:ind]."
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = list(A._data.shape)
    rows, cols = int(np.prod(shape[:ind], dtype=np.int64)), int(np.prod(shape[ind:], dtype=np.int64))
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    inverse, info = inv_ex(f.reshape(A, cols, cols))
    bad = info._data[info._data > 0]
    if bad.size:
        raise _LinAlgError(f"inv: The diagonal element {int(bad.flat[0])} is zero, the inversion could not be "
                           "completed because the input matrix is singular.")
    return f.reshape(inverse, *(shape[ind:] + shape[:ind]))


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None) -> Tensor:
    "X with tensordot(A, X, X.ndim) = B: A (its dims moved to the end) solved as a square matrix."
    ndim = A._data.ndim
    if dims is not None:
        dims = list(dims)
        A = f.movedim(A, dims, list(range(ndim - len(dims), ndim)))
    result_shape = list(A._data.shape[B._data.ndim:])
    result_size = int(np.prod(result_shape, dtype=np.int64))
    other_size = int(np.prod(B._data.shape, dtype=np.int64))
    if result_size != other_size:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {result_size} != {other_size}")
    return f.reshape(solve(f.reshape(A, result_size, result_size), f.flatten(B)), *result_shape)


def _check_lu(A: Tensor, pivot: bool) -> None:
    if A._data.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A._data.shape)} instead")
    if A._data.dtype.kind != "f":
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype.legacy}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    "LAPACK's getrf: L and U packed in one matrix, the 1-based int32 row swaps, and info."
    _check_lu(A, pivot)
    LU, pivots, info = apply(ops.LINALG_LU_FACTOR_EX, (A,), {"pivot": pivot})
    if check_errors:
        _raise_if_lu_singular("torch.linalg.lu_factor_ex", info._data)
    return LuFactorExResult(LU, pivots, info)


def _raise_if_lu_singular(name: str, info: np.ndarray) -> None:
    bad = info[info > 0]
    if bad.size:
        i = int(bad.flat[0])
        raise RuntimeError(f"{name}: U[{i},{i}] is zero and using it on lu_solve would result in a division by zero. "
                           "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    "lu_factor_ex that raises where U has a zero on its diagonal."
    _check_lu(A, pivot)
    LU, pivots, info = apply(ops.LINALG_LU_FACTOR_EX, (A,), {"pivot": pivot})
    _raise_if_lu_singular("torch.linalg.lu_factor", info._data)
    return LuFactorResult(LU, pivots)


def lu(A: Tensor, *, pivot: bool = True) -> Any:
    "A = P L U with P a permutation, L unit lower-triangular, U upper-triangular."
    _check_lu(A, pivot)
    return LuResult(*apply(ops.LINALG_LU, (A,), {"pivot": pivot}))


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,  # noqa: N803
             adjoint: bool = False) -> Tensor:
    "X with A X = B for A = P L U given packed by lu_factor (X A = B when not left; Aᴴ when adjoint)."
    if LU._data.dtype.kind != "f":
        raise RuntimeError(f"torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
                           f"{LU.dtype.legacy}")
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{LU.dtype.legacy} and B of type {B.dtype.legacy} instead")
    if pivots._data.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if LU._data.ndim < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.")
    a, b = LU._data.shape, B._data.shape
    if a[-1] != a[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are {a[-2]} by "
                           f"{a[-1]} matrices")
    if len(b) < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if (b[-2] if left else b[-1]) != a[-1]:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a[-2]}x{a[-1]} and {b[-2]}x{b[-1]})")
    if pivots._data.ndim == 0 or pivots._data.shape[-1] != a[-1]:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix")
    if pivots._data.shape != a[:-1]:
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots "
                           f"with shape {list(pivots._data.shape)} instead")
    f._check_broadcast(f._constant(np.empty(b[:-2])), f._constant(np.empty(a[:-2])))
    return apply(ops.LINALG_LU_SOLVE, (LU, B), {"pivots": pivots._data, "left": left, "adjoint": adjoint})


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True) -> Any:
    "torch.lu_unpack: P, L and U from lu_factor's packed LU and pivots."
    if LU_data._data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data._data.shape)} instead")
    pivots = LU_pivots._data
    if unpack_pivots:
        if pivots.dtype != np.int32:
            raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."
                               "\nNote: this function is intended to be used with the output produced by "
                               "torch.linalg.lu_factor")
        if pivots.size and (pivots.min() < 1 or pivots.max() > LU_data._data.shape[-2]):
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                               "properly pass the result of lu_factor?")
    return LuUnpackResult(*apply(ops.LU_UNPACK, (LU_data,), {"pivots": pivots, "unpack_data": unpack_data,
                                                             "unpack_pivots": unpack_pivots}))


_deprecation_warned: set = set()


def _warn_once(key: str, message: str) -> None:
    "PyTorch's TORCH_WARN_ONCE: the first call in the process warns."
    if key not in _deprecation_warned:
        _deprecation_warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=4)


def lu_with_info(A: Tensor, pivot: bool = True) -> Any:
    "torch._lu_with_info (deprecated, warning once): linalg.lu_factor_ex without its error check."
    _warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
               "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with"
               "\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
               "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
               "torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)")
    return LuWithInfoResult(*lu_factor_ex(A, pivot=pivot))


def torch_lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    "torch.lu: LU and pivots (and info with get_infos, as torch.return_types._lu_with_info)."
    result = lu_with_info(A, pivot)
    return result if get_infos else (result[0], result[1])


def tensor_lu(self: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple:
    "Tensor.lu: torch.lu returning plain tuples."
    return tuple(lu_with_info(self, pivot))[:3 if get_infos else 2]


def torch_lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:  # noqa: N803
    "torch.lu_solve (deprecated, warning once): linalg.lu_solve with the right side first."
    _warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
               "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, "
               "LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally "
               "at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)")
    return lu_solve(LU_data, LU_pivots, input)
