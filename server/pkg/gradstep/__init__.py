"""gradstep for notebooks and scripts: `from gradstep import show`, then `show(loss)`.

This package is only a doorway into `server`: the wheel and the editable install both copy it to the
top-level `gradstep` (pyproject's force-include), since the repository's top level is fixed.
"""

from server.notebook import Lesson, load_ipython_extension, show, trace_tensor
from server.tracer import recording, trace_code

__all__ = ["Lesson", "load_ipython_extension", "recording", "show", "trace_code", "trace_tensor"]
