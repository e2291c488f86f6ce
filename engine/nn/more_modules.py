"""nn.LocalResponseNorm, nn.RReLU and nn.TripletMarginWithDistanceLoss."""

from __future__ import annotations

from typing import Any

from engine.nn import functional as F
from engine.tensor import Tensor


def make_modules(nn: dict) -> dict[str, type]:
    """The module classes, built on the classes of nn's namespace `nn` (Module, _Loss, PairwiseDistance)."""
    Module, _Loss, PairwiseDistance = nn["Module"], nn["_Loss"], nn["PairwiseDistance"]  # noqa: N806

    class LocalResponseNorm(Module):  # type: ignore[misc, valid-type]
        __constants__ = ["size", "alpha", "beta", "k"]

        def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
            super().__init__()
            self.size = size
            self.alpha = alpha
            self.beta = beta
            self.k = k

        def forward(self, input: Tensor) -> Tensor:
            return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

        def extra_repr(self) -> str:
            return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"

    class RReLU(Module):  # type: ignore[misc, valid-type]
        __constants__ = ["lower", "upper", "inplace"]

        def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
            super().__init__()
            self.lower = lower
            self.upper = upper
            self.inplace = inplace

        def forward(self, input: Tensor) -> Tensor:
            return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

        def extra_repr(self) -> str:
            inplace_str = ", inplace=True" if self.inplace else ""
            return f"lower={self.lower}, upper={self.upper}{inplace_str}"

    class TripletMarginWithDistanceLoss(_Loss):  # type: ignore[misc, valid-type]
        __constants__ = ["margin", "swap", "reduction"]

        def __init__(self, *, distance_function: Any = None, margin: float = 1.0, swap: bool = False,
                     reduction: str = "mean") -> None:
            super().__init__(size_average=None, reduce=None, reduction=reduction)
            if margin <= 0:
                raise ValueError(
                    f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead"
                )
            self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
            self.margin = margin
            self.swap = swap

        def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
            return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                       distance_function=self.distance_function,
                                                       margin=self.margin, swap=self.swap, reduction=self.reduction)

    classes = {"LocalResponseNorm": LocalResponseNorm, "RReLU": RReLU,
               "TripletMarginWithDistanceLoss": TripletMarginWithDistanceLoss}
    for cls in classes.values():
        cls.__module__ = Module.__module__
    return classes
