"""nn.Transformer, TransformerEncoder(Layer) and TransformerDecoder(Layer), and dropout's draw order on
non-contiguous inputs: programs run with torch and with the engine, output compared."""

from __future__ import annotations

import types

import pytest

import engine
from tests.engine.programs import run_program

torch = pytest.importorskip("torch")

PRELUDE = """
def r(t, n=16, d=3):
    return [round(v, d) for v in t.flatten().tolist()[:n]]
def attempt(f):
    try:
        out = f()
        print(tuple(out.shape))
    except Exception as e:
        print(type(e).__name__, e)
"""

PROGRAMS = {
    "encoder_layer_constant_weights": """
layer = torch.nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0, batch_first=True)
for n, p in layer.named_parameters():
    torch.nn.init.constant_(p, 0.1 if 'weight' in n else 0.0)
layer.eval()
x = torch.tensor([[[1.0, 0.0, -1.0, 0.5], [0.0, 2.0, 1.0, -1.0]]])
print(layer(x))
print([n for n, _ in layer.named_parameters()])
print(layer)
print(layer.activation_relu_or_gelu, layer.norm_first, layer.activation is torch.nn.functional.relu)
""",
    "encoder_seeded_train_dropout_padding": """
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.1, batch_first=True)
enc = torch.nn.TransformerEncoder(layer, num_layers=2, norm=torch.nn.LayerNorm(4))
print(enc)
print(enc.layers[1].self_attn.in_proj_weight, enc.layers[0].linear2.bias)
x = torch.randn(2, 3, 4, requires_grad=True)
pad = torch.tensor([[False, False, True], [False, False, False]])
y = enc(x, src_key_padding_mask=pad)
print(y.grad_fn, r(y, 24))
print(r(enc(x), 24))
(y * torch.arange(4.)).pow(2).sum().backward()
print(r(x.grad, 24))
print(r(enc.layers[0].self_attn.in_proj_weight.grad[:3]))
print(r(enc.layers[1].linear1.bias.grad))
print(torch.rand(3))
print(list(enc.state_dict())[:8], len(enc.state_dict()))
""",
    "encoder_eval_fast_path": """
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.1, batch_first=True)
enc = torch.nn.TransformerEncoder(layer, num_layers=2, norm=torch.nn.LayerNorm(4)).eval()
layer.eval()
x = torch.randn(2, 3, 4)
pad = torch.tensor([[False, False, True], [False, False, False]])
y = enc(x, src_key_padding_mask=pad)
print(y.grad_fn, r(y, 24))
with torch.no_grad():
    y = enc(x, src_key_padding_mask=pad)
    print(y.grad_fn, r(y, 24))
    print(r(enc(x), 24))
    print(r(enc(x, src_key_padding_mask=torch.tensor([[False, True, False], [False, False, False]])), 24))
    print(r(layer(x, src_key_padding_mask=pad), 24))
    print(r(layer(x, src_key_padding_mask=torch.tensor([[True, True, True], [False, False, False]])), 24))
    m = torch.tensor([[0., -1., 0.5], [0., 0., -2.], [1., 0., 0.]])
    print(r(layer(x, src_mask=m), 24))
    print(r(layer(x, src_mask=m != 0), 24))
print(r(layer(x, src_mask=m), 24))
x.requires_grad_()
with torch.no_grad():
    print(r(layer(x, src_mask=m), 24))
print(layer(x, src_mask=m).grad_fn)
torch.backends.mha.set_fastpath_enabled(False)
with torch.no_grad():
    print(r(layer(x, src_mask=m), 24))
torch.backends.mha.set_fastpath_enabled(True)
print(torch.backends.mha.get_fastpath_enabled())
""",
    "norm_first_gelu_causal": """
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, activation="gelu", norm_first=True, batch_first=True)
enc = torch.nn.TransformerEncoder(layer, 2)
x = torch.randn(2, 5, 8, requires_grad=True)
m = torch.nn.Transformer.generate_square_subsequent_mask(5)
print(m)
y = enc(x, mask=m)
print(y, y.grad_fn.next_functions[0][0], y.grad_fn.next_functions[1][0])
y.pow(2).mean().backward()
print(x.grad[0])
print(enc(x, mask=m, is_causal=True)[0, :2])
enc.eval()
print(enc(x, mask=m)[1, -1])
with torch.no_grad():
    print(r(enc(x, mask=m)[1], 40))
    print(r(layer.eval()(x, is_causal=True)[0], 16))
attempt(lambda: enc.train()(x, is_causal=True))
attempt(lambda: layer.train()(x, is_causal=True))
""",
    "activations_and_warnings": """
torch.manual_seed(1)
l2 = torch.nn.TransformerEncoderLayer(6, 3, 12, activation=torch.nn.GELU(), batch_first=True)
print(l2, l2.activation_relu_or_gelu)
e2 = torch.nn.TransformerEncoder(l2, 1, enable_nested_tensor=False)
l3 = torch.nn.TransformerEncoderLayer(6, 3, 12, activation=lambda t: t.tanh())
e3 = torch.nn.TransformerEncoder(l3, 1)
l4 = torch.nn.TransformerEncoderLayer(6, 2, 12, activation=lambda t: t.tanh(), batch_first=True)
e4 = torch.nn.TransformerEncoder(l4, 1)
print(e4.use_nested_tensor, e4.enable_nested_tensor, e4.mask_check)
e5 = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(6, 3, 12, batch_first=True), 1)
l6 = torch.nn.TransformerEncoderLayer(6, 2, 12, batch_first=True, bias=False)
e6 = torch.nn.TransformerEncoder(l6, 1)
e7 = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(6, 2, 12, batch_first=True), 1)
print(e7.use_nested_tensor)
print(l6, [n for n, _ in l6.named_parameters()])
x = torch.randn(3, 6)
print(r(l3(x), 18), l4(x).grad_fn, r(l2(x), 18))
attempt(lambda: torch.nn.TransformerEncoderLayer(6, 2, activation="tanh"))
attempt(lambda: torch.nn.TransformerDecoderLayer(6, 2, activation="silu"))
t = torch.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=4)
attempt(lambda: t(torch.randn(3, 2, 4), torch.randn(3, 1, 4)))
attempt(lambda: t(torch.randn(3, 2, 4), torch.randn(3, 2, 6)))
""",
    "decoder": """
torch.manual_seed(0)
dl = torch.nn.TransformerDecoderLayer(d_model=8, nhead=4, dim_feedforward=16, dropout=0.3, batch_first=True,
                                      norm_first=True)
dec = torch.nn.TransformerDecoder(dl, num_layers=2, norm=torch.nn.LayerNorm(8))
print(dec)
tgt = torch.randn(2, 4, 8, requires_grad=True)
mem = torch.randn(2, 6, 8)
tm = torch.nn.Transformer.generate_square_subsequent_mask(4)
tpad = torch.tensor([[False, False, False, True], [False, False, False, False]])
mpad = torch.tensor([[False, False, False, False, True, True], [False] * 6])
y = dec(tgt, mem, tgt_mask=tm, tgt_key_padding_mask=tpad, memory_key_padding_mask=mpad)
print(y)
(y * torch.arange(8.)).sum().backward()
print(tgt.grad[0])
print(dec.layers[0].multihead_attn.in_proj_weight.grad[:2])
print(dec(tgt, mem, tgt_mask=tm, tgt_is_causal=True)[1])
dec.eval()
with torch.no_grad():
    print(r(dec(tgt, mem, tgt_mask=tm)[0], 32))
mm = torch.zeros(4, 6)
mm[:, -1] = float('-inf')
print(dec(tgt, mem, memory_mask=mm)[0])
dl2 = torch.nn.TransformerDecoderLayer(8, 2)
print([n for n, _ in dl2.named_parameters()])
print(dl2(torch.randn(3, 8), torch.randn(5, 8)))
print(dl2(torch.randn(3, 2, 8), torch.randn(5, 2, 8)).grad_fn)
""",
    "transformer": """
torch.manual_seed(0)
model = torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
                             dropout=0.1)
print(model)
print([(n, tuple(p.shape)) for n, p in model.named_parameters()])
print(model.encoder.layers[1].linear1.weight[:2])
print(model.decoder.layers[0].self_attn.in_proj_weight[:2], model.decoder.layers[0].self_attn.in_proj_bias[:3])
src = torch.randn(5, 2, 8)
tgt = torch.randn(4, 2, 8)
mask = model.generate_square_subsequent_mask(4)
out = model(src, tgt, tgt_mask=mask)
print(out)
(out * torch.linspace(-1, 1, 8)).pow(2).sum().backward()
print(model.encoder.layers[0].self_attn.in_proj_weight.grad[:3])
print(model.decoder.layers[1].linear2.bias.grad)
model.eval()
print(model(src, tgt, tgt_mask=mask)[0])
with torch.no_grad():
    print(r(model(src, tgt, tgt_mask=mask, tgt_is_causal=True), 32))
print(torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64))
torch.manual_seed(2)
m2 = torch.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=6,
                          batch_first=True, norm_first=True, activation="gelu")
print(m2.decoder.layers[0].linear1.weight, m2.encoder.norm.bias)
print(m2(torch.randn(1, 3, 4), torch.randn(1, 2, 4)))
""",
    "dropout_draw_order_non_contiguous": """
for a in [torch.ones(3, 2, 4).transpose(0, 1), torch.ones(6, 4).t(), torch.ones(6, 4).t()[:, ::2],
          torch.ones(3, 4, 5).permute(2, 0, 1)[:, :, 1:], torch.ones(1, 4).expand(3, 4),
          torch.ones(2, 1, 3).transpose(0, 2), torch.ones(2, 3, 4, 5).permute(0, 2, 3, 1)]:
    torch.manual_seed(0)
    print((torch.nn.functional.dropout(a, 0.5) == 0).int().flatten().tolist())
    torch.manual_seed(0)
    print((torch.nn.Dropout(0.3)(a) == 0).int().flatten().tolist(), torch.rand(2))
""",
}

WARNING_PROGRAMS = ("activations_and_warnings", "norm_first_gelu_causal")


def _run(module: types.ModuleType, name: str) -> str:
    return run_program(module, PRELUDE + PROGRAMS[name], show_warnings=name in WARNING_PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_torch(name: str) -> None:
    expected = _run(torch, name)
    actual = _run(engine, name)
    assert actual.splitlines() == expected.splitlines()
