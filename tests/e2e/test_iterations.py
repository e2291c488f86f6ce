"""A training loop in a real Chromium: the graph shows one iteration at a time, PageDown/PageUp move
between backward passes, "all iterations" draws the whole graph, and the embed, the offline lesson and
the image export show the same iteration. Screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from server.export import offline_html
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_player import load_example
from tests.e2e.test_skeleton import type_code

LOOP = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
X = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
y = torch.tensor([[0.], [1.], [1.], [0.]])
for epoch in range(30):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    opt.step()
"""
RECORDED = 21  # 20 passes recorded in full, and the forward of the 21st
OPS_PER_ITERATION = 6

OP_NODES = "[data-testid=graph] g.node.gs-op"


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _op_nodes_by_iteration(trace: dict[str, Any]) -> list[set[str]]:
    """The op nodes each iteration's forward created: those of the op events up to each backward_begin."""
    out: list[set[str]] = [set()]
    for ev in trace["events"]:
        if ev["kind"] == "op" and ev.get("node"):
            out[-1].add(ev["node"])
        elif ev["kind"] == "backward_end":
            out.append(set())
    return [s for s in out if s]


def _pass_starts(trace: dict[str, Any]) -> list[int]:
    return [i for i, ev in enumerate(trace["events"]) if ev["kind"] == "backward_begin"]


def _drawn_ops(page: Page) -> set[str]:
    return set(page.locator(OP_NODES).evaluate_all("els => els.map(e => e.dataset.nodeId)"))


def _layouts(page: Page) -> int:
    return page.evaluate("performance.getEntriesByName('gs-layout').length")


def _run_loop(page: Page, server_url: str) -> dict[str, Any]:
    page.goto(server_url)
    type_code(page, LOOP)
    with page.expect_response("**/api/v1/trace") as response:
        page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("status")).to_contain_text("Traced", timeout=30000)
    return response.value.json()


def test_the_graph_shows_one_iteration_and_pages_between_them(page: Page, server_url: str) -> None:
    trace = _run_loop(page, server_url)
    iterations = _op_nodes_by_iteration(trace)
    starts = _pass_starts(trace)
    assert len(iterations) == RECORDED and len(starts) == 30
    assert all(len(ops) == OPS_PER_ITERATION for ops in iterations)
    label = page.get_by_test_id("iteration")
    expect(label).to_have_text(f"iteration 1 of {RECORDED}")

    # Into iteration 3: the start of its backward pass.
    page.get_by_test_id("narration").click()
    for _ in range(3):
        page.keyboard.press("PageDown")
    assert page.evaluate("window.gradstep.step") == starts[2]
    expect(label).to_have_text(f"iteration 3 of {RECORDED}")
    expect(page.locator(OP_NODES)).to_have_count(OPS_PER_ITERATION)
    assert _drawn_ops(page) == iterations[2]
    # The parameters and their AccumulateGrad nodes are drawn with it.
    expect(page.locator("[data-testid=graph] g.node.gs-accumulate")).to_have_count(4)
    expect(page.locator("[data-testid=graph] [data-node-id=t1]")).to_contain_text("model.0.weight")
    _shot(page, "iterations-3")

    # Stepping inside the iteration keeps its layout; the active node is one of its own.
    layouts = _layouts(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("[data-testid=graph] g.node.is-active")).to_have_count(1)
    active = page.locator("[data-testid=graph] g.node.is-active").get_attribute("data-node-id")
    assert active in iterations[2]
    assert _layouts(page) == layouts
    _shot(page, "iterations-3-backward")

    page.keyboard.press("PageDown")
    assert page.evaluate("window.gradstep.step") == starts[3]
    expect(label).to_have_text(f"iteration 4 of {RECORDED}")
    expect(page.locator(OP_NODES)).to_have_count(OPS_PER_ITERATION)
    assert _drawn_ops(page) == iterations[3]

    # Back to iteration 3 (PageUp twice: the start of pass 4, then of pass 3): drawn from the cache.
    layouts = _layouts(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("PageUp")
    page.keyboard.press("PageUp")
    assert page.evaluate("window.gradstep.step") == starts[2]
    expect(label).to_have_text(f"iteration 3 of {RECORDED}")
    assert _drawn_ops(page) == iterations[2]
    assert _layouts(page) == layouts

    # All iterations: the whole graph, grouped by source line until expanded.
    page.get_by_test_id("toggle-all-iterations").check()
    group = page.locator("[data-testid=graph] g.gs-group")
    expect(group).to_have_count(1)
    expect(group).to_contain_text(f"line 10: {RECORDED * OPS_PER_ITERATION} nodes")
    page.get_by_test_id("expand-all").click()
    expect(page.locator(OP_NODES)).to_have_count(RECORDED * OPS_PER_ITERATION, timeout=30000)
    _shot(page, "iterations-all")
    page.get_by_test_id("toggle-all-iterations").uncheck()
    expect(page.locator(OP_NODES)).to_have_count(OPS_PER_ITERATION)
    assert _drawn_ops(page) == iterations[2]


def test_summarised_passes_show_the_last_recorded_iteration(page: Page, server_url: str) -> None:
    trace = _run_loop(page, server_url)
    iterations = _op_nodes_by_iteration(trace)
    starts = _pass_starts(trace)
    page.evaluate("(s) => window.gradstep.seek(s)", starts[27] + 1)
    expect(page.get_by_test_id("iteration")).to_have_text(
        f"iteration {RECORDED} of {RECORDED} · backward 28 summarised, not drawn")
    assert _drawn_ops(page) == iterations[-1]
    page.get_by_test_id("narration").click()
    page.keyboard.press("End")
    expect(page.get_by_test_id("iteration")).to_have_text(f"iteration {RECORDED} of {RECORDED}")
    assert _drawn_ops(page) == iterations[-1]
    _shot(page, "iterations-summarised")


def test_embed_offline_lesson_and_export_show_the_iteration(page: Page, server_url: str, tmp_path: Path) -> None:
    trace = _run_loop(page, server_url)
    iterations = _op_nodes_by_iteration(trace)
    starts = _pass_starts(trace)
    page.wait_for_function("location.hash.includes('c=')")
    fragment = page.evaluate("location.hash").split("&s=")[0]

    embed = page.context.new_page()
    embed.goto(f"{server_url}/embed?step={starts[4]}{fragment}")
    expect(embed.get_by_test_id("iteration")).to_have_text(f"iteration 5 of {RECORDED}")
    expect(embed.locator(OP_NODES)).to_have_count(OPS_PER_ITERATION)
    assert _drawn_ops(embed) == iterations[4]
    _shot(embed, "iterations-embed")

    lesson = tmp_path / "loop.html"
    lesson.write_text(offline_html(trace, step=starts[6]), encoding="utf-8")
    offline = page.context.new_page()
    offline.goto(lesson.as_uri())
    expect(offline.get_by_test_id("iteration")).to_have_text(f"iteration 7 of {RECORDED}")
    assert _drawn_ops(offline) == iterations[6]
    offline.locator("body").click()
    offline.keyboard.press("PageDown")
    expect(offline.get_by_test_id("iteration")).to_have_text(f"iteration 8 of {RECORDED}")
    assert _drawn_ops(offline) == iterations[7]

    # `gradstep export` (server/export.py) awaits seek, then takes the SVG: it must be the new iteration's.
    svg = offline.evaluate("(s) => window.gradstep.seek(s).then(() => window.gradstep.svg())", starts[9])
    drawn = {n for ops in iterations for n in ops if f'data-node-id="{n}"' in svg}
    assert drawn == iterations[9]


@pytest.mark.parametrize(("example_id", "label"), [
    ("sgd_step", "iteration 1 of 3"),
    ("accumulate_and_zero", "iteration 1 of 3"),
    ("retain_graph", None),  # three passes through one retained graph
    ("higher_order", None),  # the second pass differentiates what the first one built
    ("mlp_step", None),
])
def test_only_separate_graphs_get_the_iteration_view(page: Page, server_url: str, example_id: str,
                                                     label: str | None) -> None:
    page.goto(server_url)
    trace = load_example(page, example_id)
    bar = page.get_by_test_id("iteration-bar")
    if label is None:
        expect(bar).to_be_hidden()
        # The whole graph: every op node of the trace is drawn.
        ops = [n for n in trace["nodes"] if n["kind"] != "accumulate"]
        expect(page.locator("[data-testid=graph] g.node.gs-op, [data-testid=graph] g.node.gs-custom")).to_have_count(len(ops))
    else:
        expect(bar).to_be_visible()
        expect(page.get_by_test_id("iteration")).to_have_text(label)
