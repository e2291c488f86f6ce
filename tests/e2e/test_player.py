"""The player in a real Chromium against the real server: every gallery example, keyboard, errors,
URL restore, phone width and dark theme. Screenshots go to test-artifacts/."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from server.encode import to_numpy
from server.examples import load_examples
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_skeleton import type_code

EXAMPLE_IDS = [e.id for e in load_examples()]
NUMBER = re.compile(r"-?(?:\d+\.\d+(?:e[+-]\d+)?|nan|-?inf)")


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _counter(page: Page) -> tuple[int, int]:
    text = page.get_by_test_id("step-counter").inner_text()
    m = re.fullmatch(r"Step (\d+) / (\d+)", text.strip())
    assert m, text
    return int(m.group(1)), int(m.group(2))


def load_example(page: Page, example_id: str) -> dict[str, Any]:
    """Picks an example from the dropdown, waits for its graph, returns the trace the page received."""
    gallery = page.get_by_test_id("gallery")
    expect(gallery.locator(f"option[value='{example_id}']")).to_have_count(1)
    drawn_before = page.get_by_test_id("graph").get_attribute("data-drawn") or "0"
    with page.expect_response("**/api/v1/trace") as response:
        gallery.select_option(example_id)
    trace = response.value.json()
    expect(page.get_by_test_id("graph")).not_to_have_attribute("data-drawn", drawn_before)
    expect(page.get_by_test_id("status")).to_contain_text("Traced")
    return trace


def expected_grads(trace: dict[str, Any]) -> dict[str, list[float] | None]:
    """The `.grad` (or autograd.grad result) each tensor ends with: the last event that wrote it."""
    out: dict[str, list[float] | None] = {}
    for ev in trace["events"]:
        if ev["kind"] == "accumulate":
            out[ev["tensor"]] = to_numpy(ev["after"]).reshape(-1).tolist()
        elif ev["kind"] in ("grad_set", "retain_grad", "capture"):
            out[ev["tensor"]] = to_numpy(ev["grad"]).reshape(-1).tolist() if ev["grad"] is not None else None
    return out


def _truncated(value: Any) -> bool:
    return isinstance(value, dict) and bool(value.get("truncated"))


def _numbers(text: str) -> list[float]:
    return [float(x) for x in NUMBER.findall(text)]


def _close(shown: list[float], expected: list[Any]) -> bool:
    if len(shown) != len(expected):
        return False
    for s, e in zip(shown, expected):
        e = float(e) if not isinstance(e, str) else float(e.replace("Infinity", "inf"))
        if math.isnan(e) != math.isnan(s) or not (math.isnan(e) or math.isclose(s, e, rel_tol=1e-3, abs_tol=1e-4)):
            return False
    return True


@pytest.mark.parametrize("example_id", EXAMPLE_IDS)
def test_every_example_ends_with_the_traced_gradients(page: Page, server_url: str, example_id: str) -> None:
    page.goto(server_url)
    trace = load_example(page, example_id)
    page.get_by_test_id("step-last").click()
    first, total = _counter(page)
    assert first == total == len(trace["events"])

    grads = expected_grads(trace)
    tensors = {t["id"]: t for t in trace["tensors"]}
    checked = 0
    for tensor_id, data in grads.items():
        box = page.locator(f"[data-testid=graph] [data-node-id='{tensor_id}']")
        if box.count() == 0:
            continue  # an unnamed intermediate: drawn as its grad_fn node
        label = "\n".join(box.locator("text").all_text_contents())
        if data is None:
            assert "grad None" in label, (tensor_id, label)
        elif len(data) <= 4 and not _truncated(tensors[tensor_id]["value"]):
            grad_line = next(line for line in label.splitlines() if line.startswith(("grad ", "returned ")))
            assert _close(_numbers(grad_line), data), (tensor_id, grad_line, data)
        # The inspector shows every element of the gradient.
        box.click()
        inspector = page.get_by_test_id("inspector")
        expect(inspector).to_contain_text(f"({tensor_id})")
        text = inspector.inner_text()
        section = text.split(".grad", 1)[1] if ".grad" in text else text.split("returned by autograd.grad", 1)[1]
        if data is None:
            assert section.strip().startswith("None"), section
        else:
            shown = _numbers(section.split("shape", 1)[-1])[: len(data)] if len(data) > 1 else _numbers(section)[:1]
            assert _close(shown, data), (tensor_id, shown, data)
        checked += 1
    if any(ev["kind"] in ("accumulate", "capture") for ev in trace["events"]):
        assert checked > 0, "no gradient of this example was found in the graph"
    _shot(page, f"example-{example_id}")


def test_keyboard_steps_and_plays(page: Page, server_url: str) -> None:
    page.goto(server_url)
    trace = load_example(page, "scalar_chain")
    total = len(trace["events"])
    page.get_by_test_id("narration").click()  # focus leaves the dropdown
    page.keyboard.press("End")
    assert _counter(page) == (total, total)
    page.keyboard.press("ArrowLeft")
    assert _counter(page)[0] == total - 1
    page.keyboard.press("Home")
    assert _counter(page)[0] == 1
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _counter(page)[0] == 3
    expect(page.get_by_test_id("narration")).to_contain_text("Forward")
    page.keyboard.press(" ")
    expect(page.get_by_test_id("play")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("step-counter")).not_to_have_text(f"Step 3 / {total}", timeout=3000)
    page.keyboard.press(" ")
    expect(page.get_by_test_id("play")).to_have_attribute("aria-pressed", "false")
    # Controls are labelled and the narration is announced.
    for testid in ("step-first", "step-prev", "play", "step-next", "step-last", "scrubber", "speed", "theme"):
        assert page.get_by_test_id(testid).get_attribute("aria-label"), testid
    expect(page.get_by_test_id("narration")).to_have_attribute("aria-live", "polite")


def test_backward_step_shows_the_gradient_travelling_and_the_sum(page: Page, server_url: str) -> None:
    page.goto(server_url)
    trace = load_example(page, "shared_subexpression")
    summing = next(i for i, ev in enumerate(trace["events"]) if ev["kind"] == "node_run" and len(ev["received"]) > 1)
    page.get_by_test_id("scrubber").fill(str(summing))
    assert _counter(page)[0] == summing + 1
    node_id = trace["events"][summing]["node"]
    node = page.locator(f"[data-testid=graph] [data-node-id='{node_id}']")
    expect(node).to_have_class(re.compile(r"\bis-active\b"))
    expect(node).to_contain_text(re.compile(r"\d\.\d+ \+ \d\.\d+ = \d"))
    expect(page.get_by_test_id("sum")).to_be_visible()
    expect(page.locator("[data-testid=graph] .gs-particle").first).to_be_attached()
    _shot(page, "shared-subexpression-sum")


def test_accumulation_across_backward_calls(page: Page, server_url: str) -> None:
    page.goto(server_url)
    trace = load_example(page, "accumulate_and_zero")
    accs = [(i, ev) for i, ev in enumerate(trace["events"]) if ev["kind"] == "accumulate"]
    assert len(accs) >= 2
    i, ev = accs[1]
    page.get_by_test_id("scrubber").fill(str(i))
    acc_node = page.locator(f"[data-testid=graph] [data-node-id='{ev['node']}']")
    before, after = float(to_numpy(ev["before"])), float(to_numpy(ev["after"]))
    expect(acc_node).to_contain_text(re.compile(rf"{before:.1f} \+ .* = {after:.1f}"))
    expect(page.get_by_test_id("phase")).to_contain_text(f"Backward {ev['pass']} of")


@pytest.mark.parametrize("example_id", ["inplace_error", "retain_graph"])
def test_error_shows_at_its_step_on_the_offending_node(page: Page, server_url: str, example_id: str) -> None:
    page.goto(server_url)
    trace = load_example(page, example_id)
    error = trace["error"]
    error_step = next(i for i, ev in enumerate(trace["events"]) if ev["kind"] == "error")
    box = page.get_by_test_id("error")
    expect(box).to_contain_text(error["type"])
    expect(box).to_contain_text(f"step {error_step + 1}")
    node = page.locator(f"[data-testid=graph] [data-node-id='{error['node']}']")
    expect(node).not_to_have_class(re.compile(r"\bis-error\b"))

    page.get_by_test_id("goto-error").click()
    assert _counter(page)[0] == error_step + 1
    expect(page.get_by_test_id("narration")).to_contain_text(error["type"])
    expect(page.get_by_test_id("phase")).to_have_text("Error")
    expect(node).to_have_class(re.compile(r"\bis-error\b"))
    expect(page.get_by_test_id("inspector")).to_contain_text(error["message"][:40])
    if error.get("saved_slot"):
        saved = page.locator(f"#gs-{error['node']}\\.saved\\.{error['saved_slot']}")
        expect(saved).to_be_visible()
        expect(saved).to_contain_text(f"now v{error['actual_version']}")
    _shot(page, f"error-{example_id}")

    page.keyboard.press("ArrowLeft")
    expect(node).not_to_have_class(re.compile(r"\bis-error\b"))


def test_clicking_code_selects_its_node(page: Page, server_url: str) -> None:
    page.goto(server_url)
    trace = load_example(page, "scalar_chain")
    sin = next(n for n in trace["nodes"] if n["name"] == "SinBackward0")
    page.locator("[data-testid=editor] .cm-line").filter(has_text="torch.sin").first.get_by_text("sin", exact=False).first.click()
    expect(page.get_by_test_id("inspector")).to_contain_text(f"SinBackward0 ({sin['id']})")
    expect(page.locator(f"[data-testid=graph] [data-node-id='{sin['id']}']")).to_have_class(re.compile(r"\bis-selected\b"))


def test_url_restores_code_and_step_after_reload(page: Page, server_url: str) -> None:
    page.goto(server_url)
    trace = load_example(page, "broadcasting")
    page.get_by_test_id("step-first").click()
    page.get_by_test_id("step-next").click()
    page.get_by_test_id("step-next").click()
    assert _counter(page)[0] == 3
    page.wait_for_function("location.hash.includes('s=2')")
    page.reload()
    expect(page.get_by_test_id("status")).to_contain_text("Traced")
    assert _counter(page) == (3, len(trace["events"]))
    expect(page.locator("[data-testid=editor] .cm-content")).to_contain_text(trace["code"].splitlines()[2][:20])


def test_phone_width_has_no_horizontal_overflow(browser: Browser, server_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(server_url)
        load_example(page, "sgd_step")
        page.get_by_test_id("step-last").click()
        page.get_by_test_id("legend").locator("summary").click()
        widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1], widths
        for testid in ("step-first", "step-prev", "play", "step-next", "step-last", "scrubber", "speed", "run", "theme", "zoom-fit"):
            box = page.get_by_test_id(testid).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (testid, box)
        _shot(page, "phone")
    finally:
        context.close()


def test_dark_theme_follows_the_system_and_the_toggle_persists(browser: Browser, server_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="dark")
    page = context.new_page()
    background = "getComputedStyle(document.body).backgroundColor"
    try:
        page.goto(server_url)
        load_example(page, "hooks")
        page.get_by_test_id("step-last").click()
        assert page.evaluate(background) == "rgb(21, 23, 27)"
        _shot(page, "dark")
        page.wait_for_function("location.hash.includes('c=')")
        page.get_by_test_id("theme").click()
        assert page.evaluate(background) == "rgb(251, 251, 253)"
        page.reload()
        expect(page.get_by_test_id("status")).to_contain_text("Traced")
        assert page.evaluate(background) == "rgb(251, 251, 253)"
        page.get_by_test_id("theme").click()
        assert page.evaluate(background) == "rgb(21, 23, 27)"
    finally:
        context.close()


def test_inspector_shows_a_heatmap_for_a_matrix(page: Page, server_url: str) -> None:
    page.goto(server_url)
    trace = load_example(page, "matmul")
    matrix = next(t for t in trace["tensors"] if len(t["shape"]) == 2 and t["names"])
    page.locator(f"[data-testid=graph] [data-node-id='{matrix['id']}']").click()
    heatmap = page.get_by_test_id("inspector").get_by_test_id("heatmap").first
    expect(heatmap).to_be_visible()
    cells = heatmap.locator("td")
    expect(cells).to_have_count(len(matrix["value"]["data"]))
    _shot(page, "heatmap")


def test_large_graph_collapses_by_line_and_expands(page: Page, server_url: str) -> None:
    code = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\nfor i in range(200):\n    y = y * 1.001\ny.backward()\n"
    page.goto(server_url)
    editor = page.locator("[data-testid=editor] .cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("status")).to_contain_text("Traced")
    group = page.locator("[data-testid=graph] [data-node-id='group-L5']")
    expect(group).to_contain_text("line 5: 200 nodes")
    assert page.locator("[data-testid=graph] g.node").count() < 20
    page.get_by_test_id("step-last").click()
    expect(group).to_contain_text("ran 200/200")
    drawn = page.get_by_test_id("graph").get_attribute("data-drawn")
    group.click()
    expect(page.get_by_test_id("graph")).not_to_have_attribute("data-drawn", drawn or "")
    assert page.locator("[data-testid=graph] g.node").count() > 200
    assert _counter(page)[0] == _counter(page)[1]
    _shot(page, "large-expanded")



OVERLAPPING_TEXTS = """() => {
  const texts = [...document.querySelectorAll('[data-testid=graph] svg text')]
    .filter((t) => t.textContent.trim() && getComputedStyle(t).display !== 'none' && !t.closest('.gs-particle'))
    .map((t) => ({ text: t.textContent, owner: t.closest('g.node, g.edge'), box: t.getBoundingClientRect() }));
  const found = [];
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i].box, b = texts[j].box;
      const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (dx > 1 && dy > 3) found.push  // lines of one label may share a pixel or two of line gap([texts[i].text, texts[j].text]);
    }
  }
  return found;
}"""


SIDE_BY_SIDE_VECTORS = "import torch\ntorch.manual_seed(0)\nw = torch.randn(3, requires_grad=True)\nloss = (w * w).sum()\nloss.backward()\n"


@pytest.mark.parametrize("source", ["leaves_and_intermediates", "non_scalar_backward", "broadcasting", "hooks",
                                    SIDE_BY_SIDE_VECTORS])
def test_no_two_texts_in_the_graph_overlap_at_any_step(page: Page, server_url: str, source: str) -> None:
    """Values written into the graph as it plays (monospace) fit the room the layout gave them: no
    label runs into another at any step, not even two long vectors on edges side by side (the value
    riding on the moving gradient dot passes over labels by design)."""
    page.goto(server_url)
    if source in EXAMPLE_IDS:
        trace = load_example(page, source)
    else:
        with page.expect_response("**/api/v1/trace") as response:
            type_code(page, source)
            page.keyboard.press("Control+Enter")
        trace = response.value.json()
        expect(page.get_by_test_id("status")).to_contain_text("Traced")
    for step in range(len(trace["events"])):
        page.get_by_test_id("scrubber").fill(str(step))
        assert _counter(page)[0] == step + 1
        overlaps = page.evaluate(OVERLAPPING_TEXTS)
        if overlaps:
            _shot(page, "overlapping-texts")
        assert not overlaps, (step + 1, overlaps[:3])
