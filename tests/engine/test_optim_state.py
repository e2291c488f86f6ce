"""Optimizer state against torch: tensors (never raw arrays) with torch's dtypes, values and prints."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from conftest import torch

CONFIGS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.1}),
    ("SGD", {"lr": 0.1}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.1}),
    ("Adadelta", {"lr": 0.5}),
    ("Adamax", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01, "betas": (0.5, 0.9)}),
    ("Rprop", {"lr": 0.01}),
    ("ASGD", {"lr": 0.05, "t0": 1}),
]


def _train(T, name: str, kwargs: dict, steps: int = 3):
    w = T.tensor([[0.5, -1.0], [1.5, 0.25]], requires_grad=True)
    b = T.tensor([0.1, -0.2], requires_grad=True)
    opt = getattr(T.optim, name)([w, b], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        ((T.tensor([[1.0, 2.0], [3.0, -1.0]]) @ w + b).tanh() ** 2).sum().backward()
        opt.step()
    return opt, (w, b)


@pytest.mark.parametrize("name,kwargs", CONFIGS)
def test_state_holds_tensors_like_torch(name: str, kwargs: dict) -> None:
    t_opt, t_params = _train(torch, name, kwargs)
    e_opt, e_params = _train(engine, name, kwargs)
    assert type(e_opt.state).__name__ == type(t_opt.state).__name__ == "defaultdict"
    assert len(e_opt.state) == len(t_opt.state)
    for tp, ep in zip(t_params, e_params):
        t_state, e_state = t_opt.state[tp], e_opt.state[ep]
        assert list(e_state) == list(t_state)
        for key, expected in t_state.items():
            actual = e_state[key]
            assert isinstance(actual, engine.Tensor), (key, type(actual))
            assert repr(actual.dtype) == repr(expected.dtype)
            assert tuple(actual.shape) == tuple(expected.shape)
            assert actual.requires_grad is expected.requires_grad is False
            assert actual._version == expected._version, key
            np.testing.assert_allclose(actual._data, expected.numpy(), rtol=1e-5, atol=1e-7)
            assert repr(actual) == repr(expected), key
            assert str(actual) == str(expected), key


def test_state_of_untouched_parameter_is_an_empty_dict() -> None:
    for T in (torch, engine):
        w = T.tensor([1.0], requires_grad=True)
        opt = T.optim.Adam([w])
        assert opt.state[w] == {}


def test_adagrad_fills_its_state_at_construction_like_torch() -> None:
    states = []
    for T in (torch, engine):
        w = T.tensor([1.0, 2.0], requires_grad=True)
        opt = T.optim.Adagrad([w], initial_accumulator_value=0.5)
        states.append({k: (repr(v), v._version) for k, v in opt.state[w].items()})
    assert states[1] == states[0]


def test_state_dict_and_load_state_dict_share_tensors_like_torch() -> None:
    results = []
    for T in (torch, engine):
        opt, (w, b) = _train(T, "Adam", {"lr": 0.01})
        sd = opt.state_dict()
        w2 = T.tensor([[0.0, 0.0], [0.0, 0.0]], requires_grad=True)
        b2 = T.tensor([0.0, 0.0], requires_grad=True)
        opt2 = T.optim.Adam([w2, b2], lr=0.5)
        opt2.load_state_dict(sd)
        results.append((sorted(sd), sorted(sd["state"]), sd["param_groups"][0]["params"],
                        opt2.param_groups[0]["lr"], opt2.state[w2]["exp_avg"] is opt.state[w]["exp_avg"],
                        opt2.state[w2]["step"] is sd["state"][0]["step"],
                        sd["param_groups"][0] is opt.param_groups[0]))
    assert results[1] == results[0]
