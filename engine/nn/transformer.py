"""torch.nn's Transformer, TransformerEncoder(Layer) and TransformerDecoder(Layer), as torch 2.13 runs them."""

from __future__ import annotations

import copy
import math
import warnings
from typing import Any, Callable

from engine import creation
from engine.backends import mha
from engine.grad_mode import is_grad_enabled, no_grad
from engine.nn import GELU, Dropout, LayerNorm, Linear, Module, ModuleList, MultiheadAttention, ReLU
from engine.nn import functional as F
from engine.nn import init
from engine.tensor import Tensor

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]

NESTED_PROTOTYPE = (
    "The PyTorch API of nested tensors is in prototype stage and will change in the near future. We recommend "
    "specifying layout=torch.jagged when constructing a nested tensor, as this layout receives active "
    "development, has better operator coverage, and works with torch.compile. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)"
)
_warned: list = [False]


def _generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """-inf above the diagonal, 0 on and below it."""
    return creation.full((sz, sz), float("-inf"), dtype=dtype).triu(diagonal=1)


def _get_seq_len(src: Tensor, batch_first: bool) -> int:
    size = src.size()
    if len(size) == 2:
        return size[0]
    return size[1 if batch_first else 0]


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None = None, size: int | None = None) -> bool:
    """is_causal when given; else whether `mask` equals the square subsequent mask of the sequence length."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal_comparison = _generate_square_subsequent_mask(sz, dtype=mask.dtype)
        if mask.size() == causal_comparison.size():
            make_causal = bool((mask == causal_comparison).all())
        else:
            make_causal = False
    return make_causal


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation: str) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _has_forward_hooks(module: Module) -> bool:
    """Whether forward (pre-)hooks are registered on `module` (torch checks _forward_hooks and
    _forward_pre_hooks)."""
    d = module.__dict__
    if any(len(d.get(name) or {}) for name in ("_forward_hooks", "_forward_pre_hooks")):
        return True
    hooks = d.get("_forward_hooks_by_kind")
    return bool(hooks) and bool(hooks.get("pre") or hooks.get("post"))


def _fast_tensor_args(layer: "TransformerEncoderLayer", src: Tensor) -> tuple:
    sa = layer.self_attn
    return (src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias, layer.norm1.weight,
            layer.norm1.bias, layer.norm2.weight, layer.norm2.bias, layer.linear1.weight, layer.linear1.bias,
            layer.linear2.weight, layer.linear2.bias)


def _grad_blocks_fast_path(args: tuple) -> bool:
    return is_grad_enabled() and any(x is not None and x.requires_grad for x in args)


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with dropout, a residual connection and a LayerNorm
    (after each block, or before it with norm_first)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def _why_not_fast_path(self, src: Tensor, src_mask: Tensor | None,
                           src_key_padding_mask: Tensor | None) -> str:
        if not mha.get_fastpath_enabled():
            return "torch.backends.mha.get_fastpath_enabled() was not True"
        if src.dim() != 3:
            return f"input not batched; expected src.dim() of 3 but got {src.dim()}"
        if self.training:
            return "training is enabled"
        if not self.self_attn.batch_first:
            return "self_attn.batch_first was not True"
        if self.self_attn.in_proj_bias is None:
            return "self_attn was passed bias=False"
        if not self.self_attn._qkv_same_embed_dim:
            return "self_attn._qkv_same_embed_dim was not True"
        if not self.activation_relu_or_gelu:
            return "activation_relu_or_gelu was not True"
        if self.norm1.eps != self.norm2.eps:
            return "norm1.eps is not equal to norm2.eps"
        if self.self_attn.num_heads % 2 == 1:
            return "num_head is odd"
        if any(_has_forward_hooks(m) for m in self.modules()):
            return "forward pre-/hooks are attached to the module"
        if _grad_blocks_fast_path(_fast_tensor_args(self, src)):
            return ("grad is enabled and at least one of query or the input/output projection weights or "
                    "biases requires_grad")
        return ""

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = F._canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        if not self._why_not_fast_path(src, src_mask, src_key_padding_mask):
            return self._fast_forward(src, src_mask, src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)

    def _fast_forward(self, src: Tensor, src_mask: Tensor | None, key_padding_mask: Tensor | None) -> Tensor:
        """torch._transformer_encoder_layer_fwd: the merged float mask is read as a bool one (any nonzero
        entry masks out; is_causal is not used) and a fully masked row's softmax is nan."""
        sa = self.self_attn
        batch, seq, embed = src.shape
        heads = sa.num_heads
        head_dim = embed // heads
        with no_grad():
            mask = _merge_masks(src_mask, key_padding_mask, batch, seq, heads)
            x = src
            if self.norm_first:
                x = F.layer_norm(x, (embed,), self.norm1.weight, self.norm1.bias, self.norm1.eps)
            q, k, v = F.linear(x, sa.in_proj_weight, sa.in_proj_bias).chunk(3, -1)
            q, k, v = (t.reshape(batch, seq, heads, head_dim).transpose(1, 2) for t in (q, k, v))
            scores = (q * (1.0 / math.sqrt(head_dim))).matmul(k.transpose(-2, -1))
            if mask is not None:
                scores = scores.masked_fill(mask, float("-inf"))
            attn = F.softmax(scores, -1).matmul(v).transpose(1, 2).reshape(batch, seq, embed)
            x = F.linear(attn, sa.out_proj.weight, sa.out_proj.bias) + src
            if not self.norm_first:
                x = F.layer_norm(x, (embed,), self.norm1.weight, self.norm1.bias, self.norm1.eps)
            residual = x
            if self.norm_first:
                x = F.layer_norm(x, (embed,), self.norm2.weight, self.norm2.bias, self.norm1.eps)
            hidden = F.linear(x, self.linear1.weight, self.linear1.bias)
            hidden = F.gelu(hidden) if self.activation_relu_or_gelu == 2 else F.relu(hidden)
            x = F.linear(hidden, self.linear2.weight, self.linear2.bias) + residual
            if not self.norm_first:
                x = F.layer_norm(x, (embed,), self.norm2.weight, self.norm2.bias, self.norm1.eps)
        return x


def _merge_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None, batch: int, seq: int,
                 heads: int) -> Tensor | None:
    """MultiheadAttention.merge_masks, then the fused kernel's bool conversion (nonzero masks out)."""
    merged = None
    if key_padding_mask is not None:
        merged = key_padding_mask.view(batch, 1, 1, seq)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            expanded = attn_mask.view(1, 1, seq, seq).expand(batch, heads, -1, -1)
        else:
            expanded = attn_mask.view(batch, -1, seq, seq).expand(-1, heads, -1, -1)
        merged = expanded if merged is None else expanded + merged
    return None if merged is None else merged != 0


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's output (memory) and a feed-forward block, each with
    dropout, a residual connection and a LayerNorm (after each block, or before it with norm_first)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                   is_causal: bool = False) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _why_not_sparsity(encoder_layer: Any) -> str:
    """Why TransformerEncoder will not pack padded batches as nested tensors (checked at construction)."""
    enc_layer = "encoder_layer"
    if not isinstance(encoder_layer, TransformerEncoderLayer):
        return f"{enc_layer} was not TransformerEncoderLayer"
    if encoder_layer.norm_first:
        return f"{enc_layer}.norm_first was True"
    if not encoder_layer.self_attn.batch_first:
        return f"{enc_layer}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not encoder_layer.self_attn._qkv_same_embed_dim:
        return f"{enc_layer}.self_attn._qkv_same_embed_dim was not True"
    if encoder_layer.self_attn.in_proj_bias is None:
        return f"{enc_layer}.self_attn was passed bias=False"
    if not encoder_layer.activation_relu_or_gelu:
        return f"{enc_layer}.activation_relu_or_gelu was not True"
    if encoder_layer.norm1.eps != encoder_layer.norm2.eps:
        return f"{enc_layer}.norm1.eps was not equal to {enc_layer}.norm2.eps"
    if encoder_layer.self_attn.num_heads % 2 == 1:
        return f"{enc_layer}.self_attn.num_heads is odd"
    return ""


def _left_aligned(keep: Tensor) -> bool:
    """torch._nested_tensor_from_mask_left_aligned: every row of `keep` is Trues then Falses."""
    rows = keep._data.reshape(keep._data.shape[0], -1)
    counts = rows.sum(axis=1)
    return all(rows[i, :counts[i]].all() for i in range(rows.shape[0]))


class TransformerEncoder(Module):
    """`num_layers` deep copies of `encoder_layer`, applied in turn, then an optional `norm`."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_sparsity(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def _why_not_nested(self, src: Tensor, mask: Tensor | None, src_key_padding_mask: Tensor | None) -> str:
        first_layer = self.layers[0]
        if not mha.get_fastpath_enabled():
            return "torch.backends.mha.get_fastpath_enabled() was not True"
        if not getattr(self, "use_nested_tensor", False):
            return "self.use_nested_tensor (set in init) was not True"
        if first_layer.training:
            return "self.layers[0] was in training mode"
        if src.dim() != 3:
            return f"input not batched; expected src.dim() of 3 but got {src.dim()}"
        if src_key_padding_mask is None:
            return "src_key_padding_mask was None"
        if getattr(self, "mask_check", True) and not _left_aligned(src_key_padding_mask.logical_not()):
            return "mask_check enabled, and src and src_key_padding_mask was not left aligned"
        if mask is not None:
            return "src_key_padding_mask and mask were both supplied"
        if _grad_blocks_fast_path(_fast_tensor_args(first_layer, src)):
            return ("grad is enabled and at least one of query or the input/output projection weights or "
                    "biases requires_grad")
        return ""

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(mask), "mask", src.dtype)
        mask = F._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        output = src
        # torch packs the batch as a nested tensor: the layers then skip the padded positions and the
        # output has zeros there (before `norm`); masking the padded keys computes the same values
        padded = None
        if not self._why_not_nested(src, mask, src_key_padding_mask):
            if not _warned[0]:
                _warned[0] = True
                warnings.warn(NESTED_PROTOTYPE, UserWarning, stacklevel=2)
            padded = src_key_padding_mask != 0
        seq_len = _get_seq_len(src, self.layers[0].self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if padded is not None:
            with no_grad():
                output = output.masked_fill(padded.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """`num_layers` deep copies of `decoder_layer`, applied in turn, then an optional `norm`."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """An encoder stack and a decoder stack (each with a final LayerNorm); every parameter with more than
    one dimension is then re-initialised with xavier_uniform_."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, custom_encoder: Any = None, custom_decoder: Any = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, dtype=dtype)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, dtype=dtype)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """A float mask for a sequence of `sz`: -inf where a position would attend to a later one, else 0."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
