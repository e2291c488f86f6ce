"""Jupyter: a notebook that calls `show(loss)` and the `%%gradstep` magic runs in a real kernel (nbclient);
its static HTML export (nbconvert) plays in Chromium with every network request refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

nbformat = pytest.importorskip("nbformat")

CELLS = [
    "import engine as torch\n"
    "from gradstep import show\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "w = torch.tensor([0.5, -1.0], requires_grad=True)\n"
    "loss = (x * w).sin().sum()\n"
    "show(loss, title='Live tensors')",
    # show() had no side effects: no .grad yet, and the graph still backpropagates.
    "assert x.grad is None and w.grad is None, (x.grad, w.grad)\n"
    "loss.backward()\n"
    "print('grad after backward:', x.grad)",
    "%load_ext gradstep",
    "%%gradstep Cell magic\n"
    "import torch\n"
    "a = torch.tensor(3.0, requires_grad=True)\n"
    "b = a * a  # step: square a\n"
    "b.backward()",
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    body, _ = HTMLExporter().from_notebook_node(nb)
    out = tmp_path_factory.mktemp("nb") / "lesson.html"
    out.write_text(body, encoding="utf-8")
    return nb, out


def test_show_runs_in_a_kernel_without_side_effects(exported: tuple[object, Path]) -> None:
    nb, _ = exported
    for cell in nb.cells:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, errors
    first = nb.cells[0].outputs[0]
    assert first.output_type == "execute_result"
    html = first.data["text/html"]
    assert html.startswith('<iframe id="gradstep-') and 'srcdoc="' in html
    printed = "".join(o.get("text", "") for o in nb.cells[1].outputs)
    assert "grad after backward: tensor([0.4388, 0.4161])" in printed
    assert "text/html" in nb.cells[3].outputs[0].data


def test_exported_notebook_plays_offline(exported: tuple[object, Path]) -> None:
    from playwright.sync_api import expect, sync_playwright

    _, html_file = exported
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        refused: list[str] = []

        def guard(route: object) -> None:
            url = route.request.url
            if url.startswith(("file:", "about:", "data:")):
                route.continue_()
            else:
                refused.append(url)
                route.abort()

        page.route("**/*", guard)
        page.goto(html_file.as_uri())
        players = page.locator("iframe.gradstep-player")
        expect(players).to_have_count(2)
        live = page.frame_locator("iframe.gradstep-player >> nth=0")
        expect(live.get_by_test_id("title")).to_have_text("Live tensors")
        expect(live.locator("[data-testid=graph] [data-node-id]").first).to_be_attached()
        names = live.locator("[data-testid=graph]").text_content() or ""
        for name in ("SinBackward0", "MulBackward0", "SumBackward0", "AccumulateGrad", "loss"):
            assert name in names
        counter = live.get_by_test_id("step-counter")
        expect(counter).to_have_text(re.compile(r"Step \d+ / \d+"))
        live.get_by_test_id("step-last").click()
        last = counter.inner_text()
        live.get_by_test_id("step-prev").click()
        assert counter.inner_text() != last
        live.get_by_test_id("step-next").click()
        expect(counter).to_have_text(last)
        # The backward pass is autograd.grad: at the end x shows what it returned (cos(x*w)*w), not a .grad.
        x_box = live.locator("[data-testid=graph] [data-node-id]").filter(has_text="[1.0, 2.0]").first
        assert "returned [0.4388, 0.4161]" in (x_box.text_content() or "")
        magic = page.frame_locator("iframe.gradstep-player >> nth=1")
        expect(magic.get_by_test_id("title")).to_have_text("Cell magic")
        magic.get_by_test_id("step-first").click()
        magic.get_by_test_id("step-next").click()
        expect(magic.get_by_test_id("caption")).to_have_text("square a")
        # The player sized its iframe from its height message.
        height = players.first.evaluate("f => f.getBoundingClientRect().height")
        assert height > 300
        page.screenshot(path=str(ROOT / "test-artifacts" / "notebook-export.png"), full_page=True)
        # The notebook template itself asks for CDN scripts (MathJax, require.js); they are refused and
        # the players work regardless. None of the refused requests comes from a player.
        assert all("gradstep" not in u for u in refused)
        browser.close()
