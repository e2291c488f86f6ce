"""The trace contract: pydantic models of everything one snippet run produces."""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from server.limits import TRACE_VERSION

# JSON has no NaN or infinity: those floats travel as these strings.
Number = Union[float, int, bool, Literal["NaN", "Infinity", "-Infinity"]]
# An element of a complex tensor: its real and imaginary parts.
ComplexNumber = Annotated[list[Union[float, Literal["NaN", "Infinity", "-Infinity"]]], Field(min_length=2, max_length=2)]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ArrayValue(Model):
    """A tensor's values, flattened row-major (a complex element as [real, imaginary]). Over the size
    cap only the first elements are kept."""

    shape: list[int]
    dtype: str
    data: list[Union[Number, ComplexNumber]]
    truncated: bool = False
    min: Number | None = None
    max: Number | None = None
    mean: Number | None = None


# A value as most fields carry it: a bare number (or NaN/infinity string) is a 0-d float32 value,
# the most common kind in teaching snippets; anything else is a full ArrayValue.
Value = Union[float, Literal["NaN", "Infinity", "-Infinity"], ArrayValue]


class Span(Model):
    """A source range; lines and columns count from 1, end_col is one past the last character."""

    line: int
    col: int
    end_line: int
    end_col: int


class TensorInfo(Model):
    id: str
    names: list[str] = []
    shape: list[int]
    dtype: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None = None
    value: Value
    span: Span | None = None
    is_param: bool = False


class SavedInfo(Model):
    slot: str
    tensor: str | None = None
    value: ArrayValue | Number | list[Number] | str | None = None
    version: int | None = None


class NodeInfo(Model):
    id: str
    name: str
    kind: Literal["op", "accumulate", "custom"]
    op: str | None = None
    inputs: list[str | None] = []
    outputs: list[str | None] = []
    variable: str | None = None
    saved: list[SavedInfo] = []
    formulas: list[str | None] = []
    span: Span | None = None
    created_in_pass: int | None = None


class LocalGradient(Model):
    kind: Literal["elementwise", "jacobian"]
    value: Value


class EdgeInfo(Model):
    """Backward direction: gradient flows from `source` (the consumer) to `target` (next function)."""

    id: str
    source: str
    target: str
    input_nr: int
    output_nr: int = 0
    formula: str | None = None
    local: LocalGradient | None = None


class ErrorInfo(Model):
    type: str
    message: str
    line: int | None = None
    col: int | None = None
    end_line: int | None = None
    end_col: int | None = None
    node: str | None = None
    saved_slot: str | None = None
    expected_version: int | None = None
    actual_version: int | None = None


class TensorCreated(Model):
    kind: Literal["tensor"]
    tensor: str
    line: int | None = None


class OpApplied(Model):
    kind: Literal["op"]
    node: str | None
    tensors: list[str]
    line: int | None = None


class Alias(Model):
    """Another tensor whose values live in the same memory, as the in-place change left it: its
    `value`, or `same_as`, the event's tensor or an earlier alias that shows the same elements in
    the same order (whose value it therefore has)."""

    tensor: str
    version: int
    value: Value | None = None
    same_as: str | None = None


class InplaceChanged(Model):
    kind: Literal["inplace"]
    tensor: str
    node: str | None
    version: int
    value: Value
    line: int | None = None
    aliases: list[Alias] = []


class Printed(Model):
    kind: Literal["print"]
    text: str
    line: int | None = None


class GradModeChanged(Model):
    kind: Literal["grad_mode"]
    enabled: bool
    line: int | None = None


class Seed(Model):
    tensor: str
    node: str | None
    grad: Value


class BackwardBegan(Model):
    kind: Literal["backward_begin"]
    pass_: int = Field(alias="pass")
    api: Literal["backward", "grad"]
    roots: list[Seed]
    retain_graph: bool
    create_graph: bool
    line: int | None = None


class Contribution(Model):
    edge: str | None
    grad: Value


class Sent(Model):
    edge: str
    grad: Value | None
    total: Value | None = None


class NodeRan(Model):
    kind: Literal["node_run"]
    pass_: int = Field(alias="pass")
    node: str
    received: list[Contribution]
    grad_outputs: list[Value | None]
    sent: list[Sent]


class GradAccumulated(Model):
    kind: Literal["accumulate"]
    pass_: int = Field(alias="pass")
    node: str
    tensor: str
    before: Value | None
    contribution: Value
    after: Value


class GradSet(Model):
    """The snippet (or an optimizer) set, zeroed or cleared a tensor's `.grad` outside backward."""

    kind: Literal["grad_set"]
    tensor: str
    grad: Value | None
    line: int | None = None


class GradRetained(Model):
    kind: Literal["retain_grad"]
    pass_: int = Field(alias="pass")
    tensor: str
    grad: Value


class GradCaptured(Model):
    kind: Literal["capture"]
    pass_: int = Field(alias="pass")
    tensor: str
    grad: Value | None


class HookFired(Model):
    kind: Literal["hook"]
    pass_: int = Field(alias="pass")
    hook: Literal["tensor", "prehook", "posthook", "post_accumulate"]
    target: str
    name: str
    result: Value | None = None


class BackwardEnded(Model):
    kind: Literal["backward_end"]
    pass_: int = Field(alias="pass")
    freed: list[str]


class ErrorRaised(Model):
    kind: Literal["error"]
    error: ErrorInfo


Event = Annotated[
    Union[
        TensorCreated,
        OpApplied,
        InplaceChanged,
        Printed,
        GradModeChanged,
        BackwardBegan,
        NodeRan,
        GradAccumulated,
        GradSet,
        GradRetained,
        GradCaptured,
        HookFired,
        BackwardEnded,
        ErrorRaised,
    ],
    Field(discriminator="kind"),
]


class Caption(Model):
    """A lesson caption: the text of a `# step: ...` comment and the source line it belongs to."""

    line: int
    text: str


class Trace(Model):
    version: str = TRACE_VERSION
    status: Literal["ok", "error", "limit", "timeout"]
    code: str
    stdout: str = ""
    error: ErrorInfo | None = None
    tensors: list[TensorInfo] = []
    nodes: list[NodeInfo] = []
    edges: list[EdgeInfo] = []
    events: list[Event] = []
    notes: list[str] = []
    captions: list[Caption] = []
    # The run read the clock or the OS's entropy (an unseeded generator, torch.seed()): running the same code
    # again may print something else, so its trace is never cached.
    nondeterministic: bool = False
