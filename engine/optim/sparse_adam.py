"""torch.optim.SparseAdam: Adam for sparse gradients, which the engine never produces, so steps refuse."""

from __future__ import annotations

from typing import Any, Iterable

from engine.optim.optimizer import Optimizer, check
from engine.tensor import Tensor


class SparseAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, maximize: bool = False) -> None:
        check(not (isinstance(lr, Tensor) and lr.numel() != 1), "Tensor lr must be 1-element")
        check(0.0 < lr, f"Invalid learning rate: {lr}")
        check(0.0 < eps, f"Invalid epsilon value: {eps}")
        check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p._data.dtype.kind == "c"]
        check(not complex_params,
              f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters")

    def _state(self, p: Tensor, group: dict) -> Any:
        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
