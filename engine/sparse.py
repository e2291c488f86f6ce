"""torch.sparse: products and sums with sparse COO tensors (see engine.sparse_coo)."""

from engine.sparse_coo import sparse_addmm as addmm, sparse_mm as mm, sparse_sum as sum  # noqa: A004

__all__ = ["addmm", "mm", "sum"]
