"""SGD, Adam, AdamW, RMSprop and Adagrad against torch over several steps."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from conftest import torch

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01, "nesterov": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.1}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True, "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1, "initial_accumulator_value": 0.5}),
]


@pytest.mark.parametrize("name,kwargs", CONFIGS)
def test_optimizer_matches_torch(name: str, kwargs: dict) -> None:
    w0 = np.array([[0.5, -1.0], [1.5, 0.25]], np.float32)
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
    results = []
    for T in (torch, engine):
        w = T.tensor(w0.copy(), requires_grad=True)
        opt = getattr(T.optim, name)([w], **kwargs)
        for _ in range(5):
            opt.zero_grad()
            loss = ((T.tensor(x) @ w).tanh() ** 2).sum()
            loss.backward()
            opt.step()
        results.append(w.detach().numpy().copy() if T is torch else w._data.copy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)
