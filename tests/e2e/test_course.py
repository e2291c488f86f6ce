"""Course material in a real Chromium against the real server: the share dialog, /embed (options,
height messages, the round trip back to the editor, framing headers), the Download and image buttons,
and lesson captions. Screenshots go to test-artifacts/."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_skeleton import type_code

LESSON = (
    "import torch\n"
    "\n"
    "x = torch.tensor(2.0, requires_grad=True)  # step: x is a leaf, so autograd fills x.grad\n"
    "y = x * x + torch.sin(x)  # step: two paths from x meet in y\n"
    "y.backward()\n"
    "print(x.grad)  # ünïcødé & <tags> stay exactly as typed\n"
)


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _counter(page: Page) -> tuple[int, int]:
    m = re.fullmatch(r"Step (\d+) / (\d+)", page.get_by_test_id("step-counter").inner_text().strip())
    assert m
    return int(m.group(1)), int(m.group(2))


def _run_lesson(page: Page, server_url: str) -> None:
    page.goto(server_url)
    type_code(page, LESSON)
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("status")).to_contain_text("Traced")


def _open_share(page: Page) -> dict[str, str]:
    page.get_by_test_id("share").click()
    dialog = page.get_by_test_id("share-dialog")
    expect(dialog).to_be_visible()
    expect(page.get_by_test_id("share-permalink")).to_have_value(re.compile(r"#c="))
    return {k: page.get_by_test_id(f"share-{k}").input_value() for k in ("permalink", "iframe", "markdown")}


def test_share_dialog_offers_permalink_iframe_and_markdown_with_copy(browser: Browser, server_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
    page = context.new_page()
    try:
        _run_lesson(page, server_url)
        page.get_by_test_id("step-next").click()
        step, _ = _counter(page)
        snippets = _open_share(page)
        assert snippets["permalink"].startswith(f"{server_url}/#c=")
        assert f"&s={step - 1}" in snippets["permalink"]
        iframe = snippets["iframe"]
        assert iframe.startswith("<iframe ") and iframe.endswith("</iframe>")
        src = re.search(r'src="([^"]+)"', iframe)
        assert src and src.group(1).replace("&amp;", "&").startswith(f"{server_url}/embed?title=")
        assert snippets["markdown"] == f"[gradstep]({snippets['permalink']})"

        # The title field rewrites the snippets; Markdown-special characters are escaped.
        page.get_by_test_id("share-title").fill("Chain rule [week 3]")
        expect(page.get_by_test_id("share-markdown")).to_have_value(
            f"[Chain rule \\[week 3\\]]({snippets['permalink']})")
        expect(page.get_by_test_id("share-iframe")).to_have_value(re.compile(r'title="Chain rule \[week 3\]"'))
        _shot(page, "course-share-dialog")

        # Keyboard only: Tab reaches the copy buttons, Enter copies, Escape closes.
        page.get_by_test_id("copy-permalink").focus()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("share-status")).to_contain_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == snippets["permalink"]
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.dataset.testid")
        assert focused == "copy-iframe", focused
        page.keyboard.press("Enter")
        assert page.evaluate("navigator.clipboard.readText()").startswith("<iframe ")
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("share-dialog")).to_be_hidden()
        assert page.evaluate("document.activeElement.dataset.testid") == "share"
    finally:
        context.close()


def test_permalink_restores_code_and_step(page: Page, server_url: str) -> None:
    _run_lesson(page, server_url)
    page.get_by_test_id("step-last").click()
    step, total = _counter(page)
    link = _open_share(page)["permalink"]
    page.keyboard.press("Escape")
    fresh = page.context.new_page()
    fresh.goto(link)
    expect(fresh.get_by_test_id("step-counter")).to_have_text(f"Step {step} / {total}")
    assert fresh.evaluate("window.gradstep.ready.then(() => 1)") == 1
    code = fresh.locator("[data-testid=editor] .cm-content").inner_text()
    assert "ünïcødé & <tags>" in code


def test_embed_plays_with_options_and_reports_its_height(page: Page, server_url: str) -> None:
    _run_lesson(page, server_url)
    iframe = _open_share(page)["iframe"].replace('title="gradstep"', 'title="gradstep" id="lesson"')
    src = re.search(r'src="([^"]+)"', iframe).group(1).replace("&amp;", "&")
    src = src.replace("?title=gradstep", "?title=" + quote("Chain rule") + "&step=2&theme=dark&panes=graph,narration,controls,code&id=lesson1")
    # A course page on another origin (a data: URL) frames the embed and sizes it from its messages.
    host = (
        "<!doctype html><h1>Week 3</h1>"
        f'<iframe id="f" src="{src}" style="width:900px;height:150px;border:0"></iframe>'
        "<script>window.got=[];addEventListener('message',e=>{if(e.data&&e.data.type==='gradstep:height'){"
        "window.got.push(e.data);document.getElementById('f').style.height=e.data.height+'px';}});</script>"
    )
    page.goto(server_url)
    page.set_content(host)
    frame = page.frame_locator("#f")
    expect(frame.get_by_test_id("title")).to_have_text("Chain rule")
    expect(frame.get_by_test_id("step-counter")).to_have_text(re.compile(r"Step 3 / \d+"))
    expect(frame.get_by_test_id("run")).to_be_hidden()
    expect(frame.get_by_test_id("inspector")).to_be_hidden()
    expect(frame.locator("[data-testid=editor] .cm-content")).to_have_attribute("contenteditable", "false")
    expect(frame.get_by_test_id("caption")).to_have_text("two paths from x meet in y")
    page.wait_for_function("window.got.length > 0 && window.got[window.got.length-1].height > 400")
    last = page.evaluate("window.got[window.got.length-1]")
    assert last["id"] == "lesson1"
    # The iframe now has the embed's own height, so nothing inside scrolls.
    inner = frame.locator("html").evaluate("e => e.scrollHeight")
    box = page.locator("#f").bounding_box()
    assert abs(box["height"] - inner) <= 2
    theme = frame.locator("html").get_attribute("data-theme")
    assert theme == "dark"
    _shot(page, "course-embed-in-page")


def test_embed_autoplay_and_open_in_gradstep_round_trip(page: Page, server_url: str) -> None:
    _run_lesson(page, server_url)
    src = re.search(r'src="([^"]+)"', _open_share(page)["iframe"]).group(1).replace("&amp;", "&")
    page.goto(src.replace("?title=gradstep", "?title=Play&autoplay=1&step=0"))
    expect(page.get_by_test_id("play")).to_have_attribute("aria-pressed", "true")
    page.wait_for_function("window.gradstep.step >= 2")
    page.get_by_test_id("play").click()
    expect(page.get_by_test_id("play")).to_have_attribute("aria-pressed", "false")
    step, total = _counter(page)
    link = page.get_by_test_id("open-full")
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", re.compile(rf"^{re.escape(server_url)}/#c=.*&s={step - 1}$"))
    with page.context.expect_page() as opened:
        link.click()
    full = opened.value
    expect(full.get_by_test_id("step-counter")).to_have_text(f"Step {step} / {total}")
    expect(full.get_by_test_id("run")).to_be_visible()
    code = full.evaluate("window.gradstep.ready.then(() => window.gradstep.code)")
    assert code == LESSON


def test_frame_headers_allow_only_the_embed_to_be_framed(server_url: str) -> None:
    def headers(path: str) -> dict[str, str]:
        with urllib.request.urlopen(server_url + path) as r:
            return {k.lower(): v for k, v in r.headers.items()}

    home = headers("/")
    assert home["x-frame-options"] == "DENY"
    assert home["content-security-policy"] == "frame-ancestors 'none'"
    assert home["x-content-type-options"] == "nosniff"
    embed = headers("/embed?title=x")
    assert embed["content-security-policy"] == "frame-ancestors *"  # the default allow-list
    assert "x-frame-options" not in embed
    assert embed["x-content-type-options"] == "nosniff"
    api = headers("/api/v1/health")
    assert api["x-frame-options"] == "DENY"


def test_download_html_and_image_buttons(page: Page, server_url: str, tmp_path: Path) -> None:
    _run_lesson(page, server_url)
    with page.expect_download() as dl:
        page.get_by_test_id("download-html").click()
    html_file = tmp_path / "lesson.html"
    dl.value.save_as(html_file)
    html = html_file.read_text(encoding="utf-8")
    assert '<script type="application/json" id="gradstep-data">{"trace":{' in html
    assert '"captions":[{"line":3' in html

    step, _ = _counter(page)
    with page.expect_download() as dl:
        page.get_by_test_id("export-svg").click()
    assert dl.value.suggested_filename == f"gradstep-step-{step:03d}.svg"
    svg = Path(dl.value.path()).read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<svg" in svg and "MulBackward0" in svg
    with page.expect_download() as dl:
        page.get_by_test_id("export-png").click()
    png = Path(dl.value.path()).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000

    # The downloaded lesson works on its own from file://, with the network cut off.
    offline = page.context.new_page()
    requests: list[str] = []
    offline.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
                  else (requests.append(r.request.url), r.abort()))
    offline.goto(html_file.as_uri())
    expect(offline.get_by_test_id("step-counter")).to_have_text(f"Step {step} / {_counter(page)[1]}")
    assert requests == []


def test_captions_show_with_the_narration(page: Page, server_url: str) -> None:
    _run_lesson(page, server_url)
    page.get_by_test_id("step-first").click()
    expect(page.get_by_test_id("caption")).to_have_text("x is a leaf, so autograd fills x.grad")
    expect(page.get_by_test_id("narration")).to_contain_text("Created x")
    page.get_by_test_id("step-next").click()
    expect(page.get_by_test_id("caption")).to_have_text("two paths from x meet in y")
    page.get_by_test_id("step-last").click()
    expect(page.get_by_test_id("caption")).to_have_count(0)
    _shot(page, "course-caption")
