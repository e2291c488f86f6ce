"""Course-material export: a trace as one offline HTML file, and images of its steps via headless Chromium."""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

STATIC = Path(__file__).parent / "static"
TEMPLATE = STATIC / "offline.html"
DATA_SLOT = '<script type="application/json" id="gradstep-data">__GRADSTEP_DATA__</script>'
DATA_OPEN = '<script type="application/json" id="gradstep-data">'
BUILD_HINT = "npm --prefix frontend ci && npm --prefix frontend run build"
PANES = ("graph", "narration", "code", "inspector", "controls")
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


class ExportError(Exception):
    """An export that cannot be made here (no built template, no browser); the message says what to do."""


def template(path: Path | None = None) -> str:
    path = path or TEMPLATE
    if not path.exists():
        raise ExportError(f"the offline player is not built ({path} is missing). Build it with:  {BUILD_HINT}")
    text = path.read_text(encoding="utf-8")
    if DATA_SLOT not in text:
        raise ExportError(f"{path} is not a gradstep offline template (it has no data slot)")
    return text


def script_safe_json(data: Any) -> str:
    """JSON that cannot close the <script> element it sits in (same escaping as the frontend's)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def offline_html(trace: dict, *, title: str | None = None, step: int | None = None,
                 panes: Sequence[str] | None = None, template_path: Path | None = None) -> str:
    """One self-contained HTML file that replays `trace`: player, Graphviz and data all inline.

    `step` is 0-based (the player's own numbering); None starts where the app does, before backward.
    """
    data: dict[str, Any] = {"trace": trace}
    if title:
        data["title"] = title
    if step is not None:
        data["step"] = step
    if panes:
        unknown = [p for p in panes if p not in PANES]
        if unknown:
            raise ExportError(f"unknown pane(s) {', '.join(unknown)}; choose from {', '.join(PANES)}")
        data["panes"] = list(panes)
    html = template(template_path)
    at = html.index(DATA_SLOT)
    return html[:at] + DATA_OPEN + script_safe_json(data) + "</script>" + html[at + len(DATA_SLOT):]


# --- images through headless Chromium ---------------------------------------------------------
def find_chromium() -> str | None:
    """GRADSTEP_CHROMIUM, else Debian's /usr/bin/chromium (or a Chrome on PATH)."""
    explicit = os.environ.get("GRADSTEP_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).exists():
            return candidate
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM_HELP = (
    "image export renders the lesson in headless Chromium, and none was found.\n"
    "Install it (Debian/Ubuntu: apt-get install chromium) or point GRADSTEP_CHROMIUM at a Chrome or\n"
    "Chromium binary. The HTML export (--format html) needs no browser."
)


@contextmanager
def _lesson_page(html: str, width: int = 1280, height: int = 900) -> Iterator[Any]:
    """The offline lesson open in headless Chromium, with every request off this machine refused."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise ExportError("image export needs the playwright package:  pip install 'gradstep[images]'\n"
                          + CHROMIUM_HELP) from exc
    chromium = find_chromium()
    if chromium is None:
        raise ExportError(CHROMIUM_HELP)
    with tempfile.TemporaryDirectory(prefix="gradstep-export-") as tmp:
        page_file = Path(tmp) / "lesson.html"
        page_file.write_text(html, encoding="utf-8")
        with sync_playwright() as p:
            try:
                browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            except Exception as exc:  # a broken or incompatible browser binary
                raise ExportError(f"could not start Chromium at {chromium}: {exc}\n{CHROMIUM_HELP}") from exc
            try:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                           else route.abort())
                page.goto(page_file.as_uri() + "?panes=graph,narration,controls")
                page.wait_for_function("window.gradstep && window.gradstep.steps > 0", timeout=60000)
                page.evaluate("window.gradstep.ready")
                yield page
            finally:
                browser.close()


def _seek(page: Any, step: int) -> None:
    page.evaluate("(s) => window.gradstep.seek(s)", step)


def _png_bytes(page: Any, scale: float) -> bytes:
    url = page.evaluate("(s) => window.gradstep.png(s)", scale)
    return base64.b64decode(url.split(",", 1)[1])


def step_count(trace: dict) -> int:
    return max(1, len(trace.get("events", [])))


def _check_step(trace: dict, step: int | None) -> None:
    total = step_count(trace)
    if step is not None and not 0 <= step < total:
        raise ExportError(f"step {step + 1} is out of range: this trace has steps 1 to {total}")


def render_image(trace: dict, fmt: str, step: int | None = None, scale: float = 2.0) -> bytes:
    """SVG or PNG bytes of one step (0-based; None is the player's start step)."""
    if fmt not in ("svg", "png"):
        raise ExportError(f"unknown image format {fmt!r}")
    _check_step(trace, step)
    with _lesson_page(offline_html(trace)) as page:
        if step is not None:
            _seek(page, step)
        if fmt == "svg":
            return page.evaluate("window.gradstep.svg()").encode("utf-8")
        return _png_bytes(page, scale)


def render_frames(trace: dict, out_dir: Path, scale: float = 2.0) -> list[Path]:
    """One numbered PNG per step (step-001.png, ...), for slides; returns the files in order."""
    out_dir.mkdir(parents=True, exist_ok=True)
    total = step_count(trace)
    width = max(3, len(str(total)))
    files = []
    with _lesson_page(offline_html(trace)) as page:
        for i in range(total):
            _seek(page, i)
            path = out_dir / f"step-{i + 1:0{width}d}.png"
            path.write_bytes(_png_bytes(page, scale))
            files.append(path)
    return files
