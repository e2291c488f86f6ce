"""Exceptions raised by the policy layer and by the resource limits inside a sandboxed run."""

from __future__ import annotations


class PolicyError(Exception):
    """The snippet uses something gradstep does not allow (raised at compile time or by a guard at run time).

    `line`/`col` count from 1 (col is a character column); `end_line`/`end_col` point one past the
    last character, like the trace schema's Span. Any of them may be None when unknown.
    `error_type` is the name the trace should show ("PolicyError", or "SyntaxError" for parse errors).
    """

    error_type = "PolicyError"

    def __init__(
        self,
        message: str,
        line: int | None = None,
        col: int | None = None,
        end_line: int | None = None,
        end_col: int | None = None,
    ) -> None:
        self.message = message
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col
        super().__init__(self.__str__())

    def __str__(self) -> str:
        if self.line is not None and self.col is not None:
            return f"Line {self.line}, col {self.col}: {self.message}"
        if self.line is not None:
            return f"Line {self.line}: {self.message}"
        return self.message

    def to_dict(self) -> dict:
        """The trace's ErrorInfo fields."""
        return {
            "type": self.error_type,
            "message": str(self),
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
        }


class SnippetSyntaxError(PolicyError):
    """The snippet does not parse. Also a PolicyError, so one `except PolicyError` handles both."""

    error_type = "SyntaxError"


try:  # the tracer catches server.limits.LimitReached and keeps the partial trace: be one of those
    from server.limits import LimitReached as _LimitBase
except Exception:  # pragma: no cover - server.limits not available
    _LimitBase = BaseException  # type: ignore[misc,assignment]


class SandboxLimit(_LimitBase):  # type: ignore[misc,valid-type]
    """A resource limit stopped the run.

    A BaseException on purpose: the snippet's `except Exception:` (and a bare `except:`, which the
    policy rewrites to `except Exception:`) cannot swallow it. `status` is the trace status to report
    ("timeout" or "limit"); `limit` names the limit for the message.
    """

    status = "limit"
    error_type = "LimitExceeded"

    def __init__(self, message: str, limit: str = "") -> None:
        BaseException.__init__(self, message)
        self.message = message
        self.limit = limit

    def to_dict(self) -> dict:
        return {"type": self.error_type, "message": self.message}


class TimeLimitExceeded(SandboxLimit):
    status = "timeout"
    error_type = "TimeoutError"


class OutputLimitExceeded(SandboxLimit):
    status = "limit"
    error_type = "OutputLimitExceeded"


class MemoryLimitExceeded(SandboxLimit):
    status = "limit"
    error_type = "MemoryError"
