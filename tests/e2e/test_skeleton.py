"""A user types the seed snippet, runs it, sees the grad_fn graph and steps through backward."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.conftest import SEED_SNIPPET
from tests.e2e.conftest import ARTIFACTS


def _node(page: Page, text: str) -> object:
    return page.locator("[data-testid=graph] [data-node-id]").filter(has_text=re.compile(rf"\b{text}\b"))


def type_code(page: Page, code: str) -> None:
    editor = page.locator("[data-testid=editor] .cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def test_run_and_step_through_the_seed_snippet(page: Page, server_url: str) -> None:
    page.goto(server_url)
    type_code(page, SEED_SNIPPET)
    page.keyboard.press("Control+Enter")

    for name in ("MulBackward0", "SinBackward0", "AddBackward0", "AccumulateGrad", "x", "y"):
        expect(_node(page, name).first).to_be_visible()

    narration = page.get_by_test_id("narration")
    page.get_by_test_id("step-last").click()
    expect(_node(page, "x").first).to_contain_text("3.5839")
    final_sentence = narration.inner_text()
    assert final_sentence.strip()

    page.get_by_test_id("step-prev").click()
    expect(narration).not_to_have_text(final_sentence)
    page.get_by_test_id("step-next").click()
    expect(narration).to_have_text(final_sentence)

    page.get_by_test_id("step-first").click()
    ARTIFACTS.mkdir(exist_ok=True)
    for _ in range(40):
        if "AddBackward0" in narration.inner_text():
            break
        page.get_by_test_id("step-next").click()
    expect(narration).to_contain_text("AddBackward0")
    page.screenshot(path=str(ARTIFACTS / "seed-stepped.png"))


def test_user_error_shows_message_and_line(page: Page, server_url: str) -> None:
    page.goto(server_url)
    type_code(page, "import torch\nv = torch.tensor([1.0, 2.0], requires_grad=True)\n(v * 2).backward()\n")
    page.get_by_test_id("run").click()
    error = page.get_by_test_id("error")
    expect(error).to_contain_text("grad can be implicitly created only for scalar outputs")
    expect(error).to_contain_text("3")


def test_code_survives_a_reload(page: Page, server_url: str) -> None:
    page.goto(server_url)
    type_code(page, "import torch\nkeep_me = torch.ones(2)\n")
    page.get_by_test_id("run").click()
    page.reload()
    expect(page.locator("[data-testid=editor] .cm-content")).to_contain_text("keep_me")
