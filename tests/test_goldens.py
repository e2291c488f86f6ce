"""Golden traces: every gallery example traces to exactly its stored file (deterministic, schema-valid)."""

from __future__ import annotations

import pytest

from server.examples import load_examples
from server.schema import Trace
from server.tracer import trace_code
from tests.fixtures.regenerate import GOLDEN, render

EXAMPLES = {e.id: e for e in load_examples()}


def test_every_example_has_a_golden_trace() -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(EXAMPLES)


@pytest.mark.parametrize("example_id", sorted(EXAMPLES))
def test_trace_matches_golden(example_id: str) -> None:
    trace = trace_code(EXAMPLES[example_id].code)
    Trace.model_validate(trace)
    expected = (GOLDEN / f"{example_id}.json").read_text(encoding="utf-8")
    assert render(trace) == expected, (
        f"{example_id}: the trace changed; if intended, run `python -m tests.fixtures.regenerate` "
        "and review the diff"
    )
