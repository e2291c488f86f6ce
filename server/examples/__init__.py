"""The example gallery: teaching snippets stored as .py files whose first line is `# title: ...`."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

HERE = Path(__file__).parent


class Example(BaseModel):
    id: str
    title: str
    code: str


@lru_cache(maxsize=1)
def load_examples() -> list[Example]:
    examples = []
    for path in sorted(HERE.glob("*.py")):
        if path.name.startswith("_"):
            continue
        text = path.read_text(encoding="utf-8")
        first, _, rest = text.partition("\n")
        title = first.removeprefix("# title:").strip()
        examples.append(Example(id=path.stem.split("_", 1)[1], title=title, code=rest.lstrip("\n")))
    return examples
