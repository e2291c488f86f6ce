"""`gradstep export`: one offline HTML file (opened from file:// in Chromium with every network request
refused), SVG/PNG of a step, numbered PNG frames of every step, and a clear error without Chromium."""

from __future__ import annotations

import hashlib
import re
import subprocess
from html.parser import HTMLParser
import sys
from pathlib import Path
from typing import Iterator

import pytest

from server import export
from server.tracer import trace_code
from tests.conftest import ROOT
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

LESSON = (
    "import torch\n"
    "x = torch.tensor([1.0, -2.0], requires_grad=True)  # step: a leaf with two elements\n"
    "y = (x * x).sum() + x.sin().sum()\n"
    "y.backward()  # step: backward from y\n"
    "print('</script><script>alert(1)</script>')\n"
)
# Identifiers that XML and SVG code names but a browser never fetches; nothing else may appear.
NOT_FETCHED = {
    "http://www.w3.org/2000/svg",
    "http://www.w3.org/1999/xlink",
    "http://www.w3.org/1999/xhtml",
    "http://www.w3.org/2000/xmlns/",
    "http://www.w3.org/XML/1998/namespace",
    "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd",
}
URL = re.compile(r"https?://[A-Za-z0-9.\-_~:/?#\[\]@!$&'()*+,;=%]*")


class _Links(HTMLParser):
    """Every src and href the page would load (script contents are text to the parser, as to a browser)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            return  # a link is followed on a click, never loaded
        self.found += [v.split(",")[0] for k, v in attrs if k in ("src", "href") and v is not None]


def _loaded(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return parser.found


def gradstep(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def lesson_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lesson")
    (folder / "lesson.py").write_text(LESSON, encoding="utf-8")
    return folder / "lesson.py"


@pytest.fixture(scope="module")
def lesson_html(lesson_file: Path) -> Path:
    out = lesson_file.with_suffix(".html")
    result = gradstep("export", str(lesson_file), "-o", str(out), "--title", "Two paths")
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def offline_browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def test_the_html_is_one_file_naming_no_external_host(lesson_html: Path) -> None:
    html = lesson_html.read_text(encoding="utf-8")
    found = {m.group(0).rstrip("'\"\\),;") for m in URL.finditer(html)}
    assert found <= NOT_FETCHED, found - NOT_FETCHED
    # Nothing is loaded from a file beside it either: the markup's only src/href is the data: icon.
    assert _loaded(html) == ["data:image/svg+xml"]
    assert "new Worker" not in html and ".wasm\"" not in html
    # The printed "</script>" of the snippet cannot break out of the data block.
    assert html.count("</script><script>alert(1)") == 0


def test_offline_html_steps_with_every_request_blocked(offline_browser: object, lesson_html: Path) -> None:
    page = offline_browser.new_page(viewport={"width": 1200, "height": 800})
    refused: list[str] = []

    def guard(route: object) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page.route("**/*", guard)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(lesson_html.as_uri())
    counter = page.get_by_test_id("step-counter")
    page.wait_for_function("window.gradstep && window.gradstep.steps > 1")
    page.evaluate("window.gradstep.ready")
    assert page.get_by_test_id("title").inner_text() == "Two paths"
    assert page.locator("[data-testid=graph] [data-node-id]").count() >= 5
    before = counter.inner_text()
    narration = page.get_by_test_id("narration").inner_text()
    page.get_by_test_id("step-next").click()
    assert counter.inner_text() != before
    assert page.get_by_test_id("narration").inner_text() != narration
    page.keyboard.press("End")
    trace = trace_code(LESSON)
    total = len(trace["events"])
    assert counter.inner_text() == f"Step {total} / {total}"
    x_node = page.locator("[data-testid=graph] [data-node-id]").filter(has_text="x").first
    assert "2.5403" in (x_node.text_content() or "")  # x.grad[0] = 2x + cos(x) at x = 1
    page.keyboard.press("Home")
    assert page.get_by_test_id("caption").inner_text() == "a leaf with two elements"
    page.screenshot(path=str(ROOT / "test-artifacts" / "export-offline.png"), full_page=True)
    assert refused == [] and errors == []
    page.close()


def test_svg_and_png_of_one_step(lesson_file: Path, tmp_path: Path) -> None:
    svg_out = tmp_path / "step.svg"
    result = gradstep("export", str(lesson_file), "--format", "svg", "--step", "5", "-o", str(svg_out))
    assert result.returncode == 0, result.stderr
    svg = svg_out.read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<svg" in svg and "AccumulateGrad" in svg
    assert "var(--" not in svg  # colours resolved: the file looks the same anywhere
    png_out = tmp_path / "step.png"
    result = gradstep("export", str(lesson_file), "--format", "png", "--step", "5", "-o", str(png_out))
    assert result.returncode == 0, result.stderr
    data = png_out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(data[16:20], "big")
    assert width > 200
    bad = gradstep("export", str(lesson_file), "--format", "png", "--step", "999", "-o", str(png_out))
    assert bad.returncode == 2 and "out of range" in bad.stderr


def test_frames_one_png_per_step_and_they_differ(lesson_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "frames"
    result = gradstep("export", str(lesson_file), "--format", "frames", "-o", str(out))
    assert result.returncode == 0, result.stderr
    frames = sorted(out.glob("step-*.png"))
    steps = len(trace_code(LESSON)["events"])
    assert len(frames) == steps
    assert frames[0].name == "step-001.png"
    digests = [hashlib.sha256(f.read_bytes()).hexdigest() for f in frames]
    assert digests[0] != digests[-1]
    # Almost every step changes the picture (a print step may not).
    changed = sum(a != b for a, b in zip(digests, digests[1:]))
    assert changed >= (steps - 1) * 0.7


def test_image_export_without_chromium_says_what_to_do(lesson_file: Path, tmp_path: Path) -> None:
    env_result = subprocess.run(
        [sys.executable, "-m", "server", "export", str(lesson_file), "--format", "png", "-o", str(tmp_path / "x.png")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={"PATH": "/nonexistent", "GRADSTEP_CHROMIUM": "/nonexistent/chromium", "HOME": str(tmp_path)},
    )
    assert env_result.returncode == 2
    assert "Chromium" in env_result.stderr and "apt-get install chromium" in env_result.stderr
    assert "Traceback" not in env_result.stderr
    assert not (tmp_path / "x.png").exists()


def test_html_export_needs_the_built_template(tmp_path: Path) -> None:
    with pytest.raises(export.ExportError, match="npm --prefix frontend"):
        export.offline_html(trace_code("import torch\n"), template_path=tmp_path / "missing.html")
    with pytest.raises(export.ExportError, match="unknown pane"):
        export.offline_html(trace_code("import torch\n"), panes=["graph", "slides"])


def test_step_comments_become_captions_by_line() -> None:
    code = ("import torch\n"
            "# step: a leaf\n"
            "# step: (float32)\n"
            "x = torch.tensor(2.0, requires_grad=True)\n"
            "y = x * 3  # step: scale it\n"
            "s = '# step: in a string is not a caption'\n")
    trace = trace_code(code)
    assert trace["captions"] == [{"line": 4, "text": "a leaf (float32)"}, {"line": 5, "text": "scale it"}]
    assert trace_code("x = (\n")["captions"] == []
