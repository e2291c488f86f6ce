"""torch.nn's recurrent cells and layers, recording the graphs PyTorch's CPU implementation records."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np

from engine import creation, messages
from engine import functions as f
from engine.nn import functional, init
from engine.nn import Module
from engine.nn.utils.rnn import PackedSequence
from engine.tensor import Parameter, Tensor

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _simple_cell(activation: Callable) -> Callable:
    "The tanh / relu cell: activation(linear_hh(h) + (precomputed input or linear_ih(x)))."

    def cell(x: Tensor, h: Tensor, params: tuple, precomputed: bool = False) -> Tensor:
        w_ih, w_hh, b_ih, b_hh = params
        gates = functional.linear(h, w_hh, b_hh)
        gates.add_(x if precomputed else functional.linear(x, w_ih, b_ih))
        return activation(gates)

    return cell


def _lstm_cell(x: Tensor, hidden: tuple, params: tuple, precomputed: bool = False) -> tuple:
    "PyTorch's LSTMCell, with the hidden state projected by w_hr when there is one (proj_size)."
    w_ih, w_hh, b_ih, b_hh = params[:4]
    hx, cx = hidden
    gates = functional.linear(hx, w_hh, b_hh)
    gates.add_(x if precomputed else functional.linear(x, w_ih, b_ih))
    ingate, forgetgate, cellgate, outgate = f.unsafe_chunk(gates, 4, 1)
    ingate.sigmoid_()
    forgetgate.sigmoid_()
    cellgate.tanh_()
    outgate.sigmoid_()
    cy = f.mul(forgetgate, cx)
    cy.add_(f.mul(ingate, cellgate))
    hy = f.mul(outgate, f.tanh(cy))
    return (hy if len(params) == 4 else f.matmul(hy, f.t(params[4]))), cy


def _gru_cell(x: Tensor, h: Tensor, params: tuple, precomputed: bool = False) -> Tensor:
    w_ih, w_hh, b_ih, b_hh = params
    igates = f.unsafe_chunk(x if precomputed else functional.linear(x, w_ih, b_ih), 3, 1)
    hgates = f.unsafe_chunk(functional.linear(h, w_hh, b_hh), 3, 1)
    reset_gate = hgates[0].add_(igates[0]).sigmoid_()
    input_gate = hgates[1].add_(igates[1]).sigmoid_()
    new_gate = f.add(igates[2], hgates[2].mul_(reset_gate)).tanh_()
    return f.sub(h, new_gate).mul_(input_gate).add_(new_gate)


_CELLS = {"RNN_TANH": _simple_cell(f.tanh), "RNN_RELU": _simple_cell(f.relu), "LSTM": _lstm_cell,
          "GRU": _gru_cell}


def _check_cell_input(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, label: int = 0) -> None:
    "PyTorch's checks of a cell's input and hidden state sizes."
    if input._data.shape[1] != w_ih._data.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input._data.shape[1]} expected "
                           f"{w_ih._data.shape[1]}")
    if input._data.shape[0] != hx._data.shape[0]:
        raise RuntimeError(f"Input batch size {input._data.shape[0]} doesn't match hidden{label} batch size "
                           f"{hx._data.shape[0]}")
    if hx._data.shape[1] != w_hh._data.shape[1]:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx._data.shape[1]}, expected "
                           f"{w_hh._data.shape[1]}")


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    _check_cell_input(input, hx, w_ih, w_hh)
    return _CELLS["RNN_TANH"](input, hx, (w_ih, w_hh, b_ih, b_hh))


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    _check_cell_input(input, hx, w_ih, w_hh)
    return _CELLS["RNN_RELU"](input, hx, (w_ih, w_hh, b_ih, b_hh))


def lstm_cell(input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple:
    _check_cell_input(input, hx[0], w_ih, w_hh, 0)
    _check_cell_input(input, hx[1], w_ih, w_hh, 1)
    return _lstm_cell(input, (hx[0], hx[1]), (w_ih, w_hh, b_ih, b_hh))


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    _check_cell_input(input, hx, w_ih, w_hh)
    return _gru_cell(input, hx, (w_ih, w_hh, b_ih, b_hh))


# --- layers -------------------------------------------------------------------------------------------------
def _output_of(hidden: Any) -> Tensor:
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _direction(cell: Callable, projected: Tensor, hidden: Any, params: tuple, reverse: bool) -> tuple:
    "One direction of a layer over the precomputed input projections: (stacked outputs, last hidden)."
    steps = list(f.unbind(projected, 0))
    outputs = []
    for x in (reversed(steps) if reverse else steps):
        hidden = cell(x, hidden, params, True)
        outputs.append(_output_of(hidden))
    if reverse:
        outputs.reverse()
    return f.stack(outputs, 0), hidden


def _layer(cell: Callable, input: Tensor, hiddens: list, params: list) -> tuple:
    "One layer (both directions when there are two parameter sets): (output, last hiddens)."
    results = [_direction(cell, functional.linear(input, p[0], p[2]), h, p, reverse=d == 1)
               for d, (h, p) in enumerate(zip(hiddens, params))]
    if len(results) == 1:
        return results[0][0], [results[0][1]]
    output = f.cat([r[0] for r in results], results[0][0]._data.ndim - 1)
    return output, [r[1] for r in results]


def _stacked(cell: Callable, input: Tensor, hiddens: list, params: list, num_layers: int, directions: int,
             dropout: float, train: bool) -> tuple:
    "The layers one after another, dropout between them when training: (output, last hiddens)."
    final: list = []
    layer_input = input
    for layer in range(num_layers):
        span = slice(layer * directions, (layer + 1) * directions)
        layer_input, last = _layer(cell, layer_input, hiddens[span], params[span])
        final += last
        if dropout and train and layer < num_layers - 1:
            layer_input = functional.dropout(layer_input, dropout, True)
    return layer_input, final


def _lstm_fused(input: Tensor, hx: Tensor, cx: Tensor, params: list, has_biases: bool, num_layers: int,
                dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple:
    """The LSTM of PyTorch's CPU build for float32 (oneDNN): one MkldnnRnnLayerBackward0 node per layer
    and direction."""
    directions = 2 if bidirectional else 1
    x = f.contiguous(f.transpose(input, 0, 1) if batch_first else input)
    hx, cx = f.contiguous(hx), f.contiguous(cx)
    hidden_size = hx._data.shape[2]
    hys, cys = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh = params[index]
            if b_ih is None:
                b_ih = b_hh = f._constant(np.zeros(w_ih._data.shape[0], w_ih._data.dtype))
            out, hy, cy, _ = f.mkldnn_rnn_layer(x, w_ih, w_hh, b_ih, b_hh, f.select(hx, 0, index),
                                                f.select(cx, 0, index), direction == 1, (), 2, hidden_size,
                                                num_layers, has_biases, bidirectional, batch_first, train)
            outputs.append(out)
            hys.append(hy)
            cys.append(cy)
        x = outputs[0] if directions == 1 else f.cat(outputs, -1)
        if dropout and train and layer < num_layers - 1:
            x = functional.dropout(x, dropout, True)
    output = f.transpose(x, 0, 1) if batch_first else x
    return output, f.stack(hys, 0), f.stack(cys, 0)


def _run(mode: str, input: Tensor, hx: Any, params: list, has_biases: bool, num_layers: int, dropout: float,
         train: bool, bidirectional: bool, batch_first: bool) -> tuple:
    """_rnn_impl_with_concat: (output, hidden) with hidden a stack of the layers' last states (h and c for
    an LSTM)."""
    if mode == "LSTM" and input._data.dtype == np.float32 and input._data.size and len(params[0]) == 5:
        _warn_once(messages.LSTM_PROJECTIONS_ONEDNN)
    elif mode == "LSTM" and input._data.dtype == np.float32 and input._data.size:
        output, hy, cy = _lstm_fused(input, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                                     bidirectional, batch_first)
        return output, (hy, cy)
    x = f.transpose(input, 0, 1) if batch_first else input
    if mode == "LSTM":
        hiddens = list(zip(f.unbind(hx[0], 0), f.unbind(hx[1], 0)))
    else:
        hiddens = list(f.unbind(hx, 0))
    output, final = _stacked(_CELLS[mode], x, hiddens, params, num_layers, 2 if bidirectional else 1, dropout,
                             train)
    if mode == "LSTM":  # PyTorch's lstm transposes out of place, the other layers in place
        output = f.transpose(output, 0, 1) if batch_first else output
        return output, (f.stack([h for h, _ in final], 0), f.stack([c for _, c in final], 0))
    if batch_first:
        output.transpose_(0, 1)
    return output, f.stack(final, 0)


# --- packed sequences (PyTorch's PackedLayer / ReversedPackedLayer) --------------------------------------
def _hidden_slice(hidden: Any, start: int, end: int) -> Any:
    if isinstance(hidden, tuple):
        return tuple(f.narrow(h, 0, start, end - start) for h in hidden)
    return f.narrow(hidden, 0, start, end - start)


def _hidden_concat(hiddens: list) -> Any:
    if isinstance(hiddens[0], tuple):
        return tuple(f.cat(list(hs), 0) for hs in zip(*hiddens))
    return f.cat(hiddens, 0)


def _packed_direction(cell: Callable, projected: Tensor, sizes: list, hidden: Any, params: tuple,
                      reverse: bool) -> tuple:
    """One direction of a layer over packed steps: the hidden state is cut as sequences end (or grown as they
    start, in reverse); returns (packed outputs, last hidden of every sequence)."""
    outputs = []
    if not reverse:
        finished, offset, last = [], 0, sizes[0]
        for batch in sizes:
            step = f.narrow(projected, 0, offset, batch)
            offset += batch
            if last > batch:
                finished.append(_hidden_slice(hidden, batch, last))
                hidden = _hidden_slice(hidden, 0, batch)
            last = batch
            hidden = cell(step, hidden, params, True)
            outputs.append(_output_of(hidden))
        finished.append(hidden)
        finished.reverse()
        return f.cat(outputs, 0), _hidden_concat(finished)
    initial, offset, last = hidden, projected._data.shape[0], sizes[-1]
    hidden = _hidden_slice(initial, 0, last)
    for batch in reversed(sizes):
        if batch > last:
            hidden = _hidden_concat([hidden, _hidden_slice(initial, last, batch)])
        step = f.narrow(projected, 0, offset - batch, batch)
        offset -= batch
        last = batch
        hidden = cell(step, hidden, params, True)
        outputs.append(_output_of(hidden))
    outputs.reverse()
    return f.cat(outputs, 0), hidden


def _run_packed(mode: str, data: Tensor, sizes: list, hx: Any, params: list, num_layers: int, dropout: float,
                train: bool, bidirectional: bool) -> tuple:
    """_rnn_impl_with_concat over a PackedSequence's data: (packed output data, stacked last hiddens)."""
    cell = _CELLS[mode]
    directions = 2 if bidirectional else 1
    if mode == "LSTM":
        hiddens = list(zip(f.unbind(hx[0], 0), f.unbind(hx[1], 0)))
    else:
        hiddens = list(f.unbind(hx, 0))
    final: list = []
    layer_input = data
    for layer in range(num_layers):
        span = slice(layer * directions, (layer + 1) * directions)
        results = [_packed_direction(cell, functional.linear(layer_input, p[0], p[2]), sizes, h, p, d == 1)
                   for d, (h, p) in enumerate(zip(hiddens[span], params[span]))]
        layer_input = results[0][0] if directions == 1 else f.cat([r[0] for r in results], -1)
        final += [r[1] for r in results]
        if dropout and train and layer < num_layers - 1:
            layer_input = functional.dropout(layer_input, dropout, True)
    if mode == "LSTM":
        return layer_input, (f.stack([h for h, _ in final], 0), f.stack([c for _, c in final], 0))
    return layer_input, f.stack(final, 0)


_WARNED: set = set()


def _warn_once(message: str) -> None:
    "TORCH_WARN_ONCE: a UserWarning the first time only."
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, stacklevel=4)


# --- modules ------------------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """weight_ih (chunks * hidden, input), weight_hh (chunks * hidden, hidden) and their biases, uniform in
    ±1/sqrt(hidden_size)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(creation.empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input: Tensor, hx: Any, name: str, states: int) -> tuple:
        "(input, hidden states) with a batch dim, and whether input had one (PyTorch's checks)."
        if input._data.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input._data.ndim}D instead")
        given = () if hx is None else (tuple(hx) if states == 2 else (hx,))
        for i, h in enumerate(given):
            if h._data.ndim not in (1, 2):
                which = f"hx[{i}]" if states == 2 else "hidden"
                raise ValueError(f"{name}: Expected {which} to be 1D or 2D, got {h._data.ndim}D instead")
        batched = input._data.ndim == 2
        if not batched:
            input = f.unsqueeze(input, 0)
        if hx is None:
            zeros = creation.zeros(input._data.shape[0], self.hidden_size, dtype=input.dtype)
            return input, (zeros,) * states, batched
        return input, tuple(h if batched else f.unsqueeze(h, 0) for h in given), batched

    def _params(self) -> tuple:
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if hx is not None and hx._data.ndim not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx._data.ndim}D instead")
        x, (h,), batched = self._batched(input, hx, "RNNCell", 1)
        if self.nonlinearity == "tanh":
            out = rnn_tanh_cell(x, h, *self._params())
        elif self.nonlinearity == "relu":
            out = rnn_relu_cell(x, h, *self._params())
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out if batched else f.squeeze(out, 0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple:
        x, (h, c), batched = self._batched(input, hx, "LSTMCell", 2)
        hy, cy = lstm_cell(x, (h, c), *self._params())
        return (hy, cy) if batched else (f.squeeze(hy, 0), f.squeeze(cy, 0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), batched = self._batched(input, hx, "GRUCell", 1)
        out = gru_cell(x, h, *self._params())
        return out if batched else f.squeeze(out, 0)


class RNNBase(Module):
    """Parameters weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} (and _reverse ones) per layer,
    uniform in ±1/sqrt(hidden_size) in that order."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_rnn_args(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden_size = proj_size or hidden_size
        self._flat_weights_names: list = []
        self._all_weights: list = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden_size * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [(gate_size, layer_input), (gate_size,
                                                     real_hidden_size)] + ([(gate_size,)] * 2 if bias else [])
                names = ["weight_ih_l", "weight_hh_l", "bias_ih_l", "bias_hh_l"][:len(shapes)]
                if proj_size:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l")
                names = [f"{n}{layer}{suffix}" for n in names]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(creation.empty(*shape, dtype=dtype)))
                self._flat_weights_names += names
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Packs weights for cuDNN in PyTorch; nothing to do on the CPU."""

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _layer_params(self) -> list:
        "(w_ih, w_hh, b_ih, b_hh[, w_hr]) per layer and direction (no biases: None)."
        params = []
        for names in self._all_weights:
            w = [getattr(self, n) for n in names]
            biases = tuple(w[2:4]) if self.bias else (None, None)
            params.append((w[0], w[1]) + biases + ((w[-1],) if self.proj_size else ()))
        return params

    def _hidden_shapes(self, batch: int, states: int) -> list:
        "The expected shape of h (and c): h has proj_size features when projected."
        layers = self.num_layers * (2 if self.bidirectional else 1)
        sizes = [self.proj_size or self.hidden_size, self.hidden_size][:states]
        return [(layers, batch, size) for size in sizes]

    def _prepare(self, input: Tensor, hx: Any, states: int) -> tuple:
        "(input with a batch dim, hidden state(s), whether input was batched, the batch dim)."
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
        if input._data.ndim not in (2, 3):
            suffix = " tensor instead" if name == "RNN" else " instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input._data.ndim}D{suffix}")
        batched = input._data.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = f.unsqueeze(input, batch_dim)
        given = None if hx is None else (tuple(hx) if states == 2 else (hx,))
        if given is not None:
            wanted = 3 if batched else 2
            if any(h._data.ndim != wanted for h in given):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                if states == 2:
                    dims = ", ".join(f"{h._data.ndim}-D" for h in given)
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {wanted}-D but got "
                                       f"({dims}) tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {wanted}-D but got "
                                   f"{given[0]._data.ndim}-D tensor")
            if not batched:
                given = tuple(f.unsqueeze(h, 1) for h in given)
        batch = input._data.shape[batch_dim]
        if given is None:
            shapes = self._hidden_shapes(batch, states)
            given = tuple(creation.zeros(*shape, dtype=input.dtype) for shape in shapes)
        self._check_forward_args(input, given)
        return input, given, batched, batch_dim

    def _check_forward_args(self, input: Tensor, hidden: tuple, packed_batch: int | None = None) -> None:
        "RNNBase.check_forward_args; a packed input (packed_batch: its first batch size) has 2 dims."
        weight = getattr(self, self._flat_weights_names[0])
        if input._data.dtype != weight._data.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or convert model: "
                             f"model.to({input.dtype})")
        dims = 3 if packed_batch is None else 2
        if input._data.ndim != dims:
            raise RuntimeError(f"input must have {dims} dimensions, got {input._data.ndim}")
        if self.input_size != input._data.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input._data.shape[-1]}")
        batch = input._data.shape[0 if self.batch_first else 1] if packed_batch is None else packed_batch
        messages = (["Expected hidden[0] size {}, got {}",
                     "Expected hidden[1] size {}, got {}"] if len(hidden) == 2
                    else ["Expected hidden size {}, got {}"])
        for h, message, expected in zip(hidden, messages, self._hidden_shapes(batch, len(hidden))):
            if h._data.shape != expected:
                raise RuntimeError(message.format(expected, list(h._data.shape)))

    def _forward(self, input: Tensor, hx: Any, states: int) -> tuple:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, states)
        x, hidden, batched, batch_dim = self._prepare(input, hx, states)
        output, hidden = _run(self.mode, x, hidden if states == 2 else hidden[0], self._layer_params(),
                              self.bias, self.num_layers, self.dropout, self.training, self.bidirectional,
                              self.batch_first)
        if not batched:
            output = f.squeeze(output, batch_dim)
            hidden = tuple(f.squeeze(h, 1) for h in hidden) if states == 2 else f.squeeze(hidden, 1)
        return output, hidden

    def _forward_packed(self, input: PackedSequence, hx: Any, states: int) -> tuple:
        """RNNBase.forward on a PackedSequence: hidden states follow the sorted order inside, the caller's
        order outside; the output is a PackedSequence with the input's batch sizes and indices."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        sizes = [int(n) for n in batch_sizes._data.tolist()]
        if hx is None:
            hidden = tuple(creation.zeros(*shape, dtype=data.dtype) for shape in self._hidden_shapes(sizes[0], states))
        else:
            hidden = _permute_hidden(tuple(hx) if states == 2 else (hx,), sorted_indices)
        if states == 1:  # LSTM.forward checks nothing for a packed input
            self._check_forward_args(data, hidden, sizes[0])
        if (states == 2 and not self.proj_size and data._data.dtype == np.float32 and data._data.size
                and len(set(sizes)) == 1):  # no sequence ends early: oneDNN's LSTM on the steps as a batch
            steps = f.view(data, [len(sizes), sizes[0], data._data.shape[1]])
            output, hy, cy = _lstm_fused(steps, hidden[0], hidden[1], self._layer_params(), self.bias,
                                         self.num_layers, self.dropout, self.training, self.bidirectional, False)
            output, last = f.view(output, [-1, output._data.shape[2]]), (hy, cy)
        else:
            output, last = _run_packed(self.mode, data, sizes, hidden if states == 2 else hidden[0],
                                       self._layer_params(), self.num_layers, self.dropout, self.training,
                                       self.bidirectional)
        last = _permute_hidden(last if states == 2 else (last,), unsorted_indices)
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), last if states == 2 else last[0]


def _permute_hidden(hidden: tuple, permutation: Tensor | None) -> tuple:
    """RNNBase.permute_hidden: the hidden states' batch dim reordered (none when unsorted)."""
    if permutation is None:
        return hidden
    return tuple(f.index_select(h, 1, permutation) for h in hidden)


def _check_rnn_args(input_size: int, hidden_size: int, num_layers: int, bias: Any, batch_first: Any,
                    dropout: Any, proj_size: int) -> None:
    "RNNBase's argument checks, with PyTorch's messages."
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                         "element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                      f"expects num_layers greater than 1, but got dropout={dropout} and "
                      f"num_layers={num_layers}",
                      stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if kind is int and value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNN(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity, args = args[3], args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple:
        return self._forward(input, hx, 1)


class LSTM(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Tensor, hx: Any = None) -> tuple:
        return self._forward(input, hx, 2)


class GRU(RNNBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple:
        return self._forward(input, hx, 1)
