"""Anomaly mode under warning filters, against torch: the backward failure is what gets raised."""

from __future__ import annotations

import warnings

import pytest

import engine
from conftest import torch


def _nan_backward(T) -> None:
    with T.autograd.set_detect_anomaly(True):
        T.sqrt(T.tensor([-1.0], requires_grad=True)).sum().backward()


def _inplace_backward(T) -> None:
    with T.autograd.set_detect_anomaly(True):
        x = T.tensor([1.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        y.sum().backward()


def _outcome(T, fn, mode: str, capfd) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(mode)
        with pytest.raises(Exception) as raised:
            fn(T)
    stderr = capfd.readouterr().err
    return (type(raised.value), str(raised.value), [w.category for w in caught],
            stderr.splitlines()[0] if stderr else None, stderr.rstrip().splitlines()[-1] if stderr else None)


@pytest.mark.parametrize("mode", ["error", "default", "ignore"])
@pytest.mark.parametrize("fn", [_nan_backward, _inplace_backward], ids=["nan", "inplace"])
def test_anomaly_failure_under_warning_filters(fn, mode: str, capfd) -> None:
    expected = _outcome(torch, fn, mode, capfd)
    actual = _outcome(engine, fn, mode, capfd)
    assert actual == expected
    if mode == "error":
        # the escalated warning is printed, the backward failure raised
        assert expected[0] is RuntimeError
        assert expected[3].startswith("UserWarning: Error detected in ")


def test_nan_message_under_error_filter() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values in its 0th output\.$"):
            _nan_backward(engine)
