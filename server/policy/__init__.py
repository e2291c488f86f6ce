"""The policy layer of the gradstep sandbox: what a snippet may say (compile time) and reach (run time).

    code = compile_snippet(source, transform=tracer_rewrite)      # PolicyError / SnippetSyntaxError
    g = snippet_globals(engine, write=stdout_parts.append, extra={"__gradstep_name__": tag})
    exec(code, g)                                                 # guards raise PolicyError

Resource limits raised inside a run (`SandboxLimit` and subclasses) are BaseExceptions, so the
snippet's own `except Exception:` cannot swallow them; the tracer should catch `SandboxLimit` and
report `exc.status` ("timeout" / "limit") with `exc.message`.
"""

from .compiler import MAX_SOURCE_BYTES, SNIPPET_FILENAME, compile_snippet
from .errors import (
    MemoryLimitExceeded,
    OutputLimitExceeded,
    PolicyError,
    SandboxLimit,
    SnippetSyntaxError,
    TimeLimitExceeded,
)
from .guards import DEFAULT_MAX_OUTPUT_CHARS, Facade, TypeName, policy_for, snippet_globals

__all__ = [
    "DEFAULT_MAX_OUTPUT_CHARS",
    "Facade",
    "MAX_SOURCE_BYTES",
    "MemoryLimitExceeded",
    "OutputLimitExceeded",
    "PolicyError",
    "SNIPPET_FILENAME",
    "SandboxLimit",
    "SnippetSyntaxError",
    "TimeLimitExceeded",
    "TypeName",
    "compile_snippet",
    "policy_for",
    "snippet_globals",
]
