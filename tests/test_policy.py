"""The policy layer in-process: what tutorials use still works; each refused category names the line
and column and says what is not allowed."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from server.policy import (  # noqa: E402
    Facade, PolicyError, SnippetSyntaxError, compile_snippet, snippet_globals,
)


def run(code: str, transform=None) -> str:
    out: list[str] = []
    exec(compile_snippet(code, transform=transform), snippet_globals(engine, out.append))
    return "".join(out)


ALLOWED = [
    ("print(1, 'a', sep='-', end='!\\n')", "1-a!\n"),
    ("def f(a, b=2, *args, k=None, **kw):\n    return a + b\nprint(f(1), f(1, 3))", "3 4\n"),
    ("def outer(n):\n    def inner(x):\n        return x * n\n    return inner\nprint(outer(3)(2), (lambda v: v + 1)(1))", "6 2\n"),
    ("print([i * i for i in range(4) if i], {k: v for k, v in zip('ab', (1, 2))}, sum(x for x in range(4)))",
     "[1, 4, 9] {'a': 1, 'b': 2} 6\n"),
    ("x = 3.14159\nprint(f'{x:.2f} {x!r} {len([1])}')", "3.14 3.14159 1\n"),
    ("print('{:.1f}|{}|{k}'.format(2.25, 'a', k=1), '%d%%' % 5)", "2.2|a|1 5%\n"),
    ("try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print(type(e).__name__, e)\nfinally:\n    print('done')",
     "ZeroDivisionError division by zero\ndone\n"),
    ("try:\n    raise ValueError('v')\nexcept:\n    print('bare except still works')", "bare except still works\n"),
    ("a, (b, c) = 1, (2, 3)\nfor i, (j, k) in enumerate([(4, 5)]):\n    print(a, b, c, i, j, k)", "1 2 3 0 4 5\n"),
    ("x = [1, 2]\nx[0] += 5\nd = {'a': 1}\nd['a'] *= 3\nn = 1\nn += 1\nprint(x, d, n)", "[6, 2] {'a': 3} 2\n"),
    ("print(isinstance(1, int), len('ab'), min(3, 1), max([2, 5]), abs(-2), round(2.567, 2), sorted([3, 1]))",
     "True 2 1 5 2 2.57 [1, 3]\n"),
    ("print(list(range(3)), dict(a=1), tuple('ab'), set([1]), float('1.5'), int('7'), str(2), bool(0))",
     "[0, 1, 2] {'a': 1} ('a', 'b') {1} 1.5 7 2 False\n"),
    ("import math\nprint(math.sqrt(16), round(math.pi, 3))", "4.0 3.142\n"),
    ("print(type(1).__name__, type('s'), type(1) == type(2), hasattr(1, 'real'))", "int <class 'str'> True True\n"),
    ("def f():\n    global g\n    g = 5\nf()\nprint(g)", "5\n"),
    ("print(', '.join(['a', 'b']).upper(), 'abc'.replace('b', 'x'))", "A, B axc\n"),
    ("x = 5\nif (y := x * 2) > 5:\n    print(y)", "10\n"),
    ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\ny.backward()\n"
     "print(type(y.grad_fn).__name__, x.grad.tolist(), type(x).__name__, type(x))",
     "SumBackward0 [2.0, 4.0] Tensor <class 'torch.Tensor'>\n"),
    ("import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x * x\n"
     "print(y.grad_fn._saved_self.tolist(), y.grad_fn.next_functions[0][0].name(), x._version)",
     "[2.0] torch::autograd::AccumulateGrad 0\n"),
    ("import torch\nw = torch.ones(2, requires_grad=True)\n(w * 3).sum().backward()\nwith torch.no_grad():\n"
     "    w -= 0.5 * w.grad\n    w.data -= 0.5 * w.grad\nw.grad = None\nprint(w.tolist(), w.grad)", "[-2.0, -2.0] None\n"),
    ("import torch\nx = torch.zeros(3)\nx[0] = 5\nx[1] += 2\nprint(x.tolist())", "[5.0, 2.0, 0.0]\n"),
    ("import torch\n@torch.no_grad()\ndef f(t):\n    return t * 2\nprint(f(torch.ones(1, requires_grad=True)).requires_grad)",
     "False\n"),
    ("from torch.autograd import Function\nimport torch\nclass Sq(Function):\n    @staticmethod\n"
     "    def forward(ctx, x):\n        ctx.save_for_backward(x)\n        ctx.k = 2\n        return x * x\n"
     "    @staticmethod\n    def backward(ctx, g):\n        (x,) = ctx.saved_tensors\n        return g * ctx.k * x\n"
     "x = torch.tensor([3.0], requires_grad=True)\nSq.apply(x).sum().backward()\nprint(x.grad.tolist())", "[6.0]\n"),
    ("import torch\nclass Sq(torch.autograd.Function):\n    '''doc'''\n    scale = 1\n    @staticmethod\n"
     "    def forward(ctx, x):\n        return x * 2\n    @staticmethod\n    def backward(ctx, g):\n        return g * 2\n"
     "print(Sq.apply(torch.ones(1)).tolist(), Sq.scale)", "[2.0] 1\n"),
    ("import torch\nx = torch.ones(2)\nprint(isinstance(x, torch.Tensor), torch.is_tensor(x), isinstance(x, type(x)))",
     "True True True\n"),
]


@pytest.mark.parametrize("code,expected", ALLOWED)
def test_allowed(code, expected):
    assert run(code) == expected


@pytest.mark.skipif(not hasattr(engine, "nn"), reason="engine.nn not there yet")
def test_nn_module_subclass_with_init():
    code = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nclass Net(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 1)\n"
            "    def forward(self, x):\n        return F.relu(self.fc(x))\n"
            "net = Net()\nprint(net(torch.ones(1, 2)).shape, len(list(net.parameters())))")
    assert run(code) == "torch.Size([1, 1]) 2\n"


def test_print_calls_write_once_per_print_with_exact_text():
    parts: list[str] = []
    code = compile_snippet("print('a', 1, sep=', ', end='')\nprint()\nprint('x', None)")
    exec(code, snippet_globals(engine, parts.append))
    assert parts == ["a, 1", "\n", "x None\n"]


def test_print_output_cap_is_a_limit_not_truncation():
    from server.policy import OutputLimitExceeded

    parts: list[str] = []
    g = snippet_globals(engine, parts.append, max_output_chars=100)
    with pytest.raises(OutputLimitExceeded) as info:
        exec(compile_snippet("while True:\n    try:\n        print('x' * 10)\n    except Exception:\n        pass"), g)
    assert "output limit" in info.value.message
    assert sum(map(len, parts)) <= 100


def test_import_returns_a_read_only_facade_not_the_engine():
    g = snippet_globals(engine, lambda s: None)
    exec(compile_snippet("import torch\nimport torch.autograd as ag\nfrom torch.autograd import Function\nt = torch"), g)
    assert isinstance(g["t"], Facade) and g["t"] is not engine
    assert isinstance(g["ag"], Facade)
    assert g["Function"] is engine.autograd.Function
    with pytest.raises(PolicyError):
        exec(compile_snippet("import torch\ntorch.tensor = 1"), snippet_globals(engine, lambda s: None))
    names = dir(g["t"])
    assert "tensor" in names and "Tensor" in names
    assert not {"np", "numpy", "observe", "tensor_module", "executor", "rules"} & set(names)


def test_extra_globals_and_transform_run_after_checks():
    seen: list[str] = []

    def transform(tree: ast.Module) -> ast.Module:
        # like the tracer: wrap every print argument in a call to an injected global
        call = ast.parse("__gradstep_name__('x')").body[0]
        tree.body.insert(0, call)
        return tree

    g = snippet_globals(engine, lambda s: None, {"__gradstep_name__": seen.append})
    exec(compile_snippet("x = 1", transform=transform), g)
    assert seen == ["x"]
    with pytest.raises(PolicyError):  # the user cannot call it
        compile_snippet("__gradstep_name__('x')")


REFUSED = [
    # (code, line, col, fragment of the message)
    ("x = 1\ny = x.__dict__", 2, 7, "names starting with '_' are not allowed: '__dict__'"),
    ("x = 1\ny = delattr(x, 'real')", 2, 5, "'delattr' is not allowed"),
    ("print('{0.__class__}'.format(1))", 1, 23, "format strings"),
    ("g = (i for i in [])\nf = g.gi_frame", 2, 7, "gi_frame"),
    ("def f():\n    yield 1\ng = f()\nc = g.gi_code", 4, 7, "gi_code"),
    ("print(__builtins__)", 1, 7, "'__builtins__'"),
    ("import os", 1, 1, "import of 'os' is not allowed"),
    ("from subprocess import run", 1, 1, "import of 'subprocess' is not allowed"),
    ("import torch\nt = torch.ones(1)\na = t.numpy().__array_interface__", 3, 15, "NumPy array"),
    ("x = 1\n\uff45\uff56\uff41\uff4c('1')", 2, 1, "non-ASCII identifiers"),
    ("import torch\nclass X(torch.autograd.Function, metaclass=type):\n    pass", 2, 44, "metaclass"),
    ("class X(type(1)):\n    pass", 1, 9, "class bases must be plain names"),
    ("@(lambda f: f)\ndef f():\n    pass", 1, 3, "decorator is not allowed"),
    ("def f(x=print.__self__):\n    pass", 1, 15, "'__self__'"),
    ("def f(x=len([])):\n    pass", 1, 9, "default argument"),
    ("eval('1')", 1, 1, "'eval' is not allowed"),
    ("exec('1')", 1, 1, "'exec' is not allowed"),
    ("def f():\n    pass\nf.__name__ = 'g'", 3, 3, "names starting with '_' are not allowed: '__name__'"),
    ("import torch\nclass F(torch.autograd.Function):\n    def __reduce__(self):\n        pass", 3, 5, "__reduce__"),
    ("class C:\n    def __getattr__(self, n):\n        pass", 2, 5, "'__getattr__' is not allowed"),
    ("try:\n    pass\nexcept* ValueError:\n    pass", 1, 1, "not allowed"),
    ("async def f():\n    pass", 1, 1, "async"),
    ("x = 'é'; y = x.__sizeof__", 1, 16, "'__sizeof__'"),
    ("import torch\nprint(type(torch.ones(1)).__mro__)", 2, 27, "class hierarchies are not available in gradstep"),
    ("print(int.__subclasses__())", 1, 11, "'.__subclasses__' is not allowed: class hierarchies"),
    ("print((1).__class__.__bases__)", 1, 21, "type(x).__name__, isinstance() and issubclass() work"),
]


@pytest.mark.parametrize("code,line,col,fragment", REFUSED)
def test_refused_with_position(code, line, col, fragment):
    with pytest.raises(PolicyError) as info:
        compile_snippet(code)
    err = info.value
    assert fragment in err.message, err.message
    assert (err.line, err.col) == (line, col), str(err)
    assert str(err).startswith(f"Line {line}, col {col}: ")
    assert err.end_line is not None and err.end_col is not None


RUNTIME_REFUSED = [
    "s = '{0.__class__}'\nprint(s.format(1))",
    "import torch\nprint(torch.float32.np)",
    "import torch\ny = torch.ones(1, requires_grad=True) * 2\nprint(y.grad_fn.rule)",
    "import torch\ntorch.Tensor.add = None",
    "import torch\nclass T(torch.Tensor):\n    pass",
    "x = type(1)\nprint(x('3'))",
    "print(type(1, 2, 3))",
    "print('a', file=1)",
]


@pytest.mark.parametrize("code", RUNTIME_REFUSED)
def test_refused_at_run_time(code):
    with pytest.raises((PolicyError, TypeError)):
        run(code)


def test_syntax_error_has_position():
    with pytest.raises(SnippetSyntaxError) as info:
        compile_snippet("x = 1\ny = (2 +\n")
    assert info.value.error_type == "SyntaxError"
    assert info.value.line is not None and info.value.col is not None


def test_source_size_limit():
    with pytest.raises(PolicyError, match="64 KiB"):
        compile_snippet("x = 1\n" * 20000)


# --- capabilities opened for tutorials ----------------------------------------------------------------------------
def run_isolated(code: str) -> str:
    """`run` inside catch_warnings: a snippet's `import warnings` changes the process's filters."""
    import warnings

    with warnings.catch_warnings():
        return run(code)


def test_numpy_view_prints_like_numpy_shares_memory_and_keeps_numpy_scalars():
    out = run("import torch\nt = torch.tensor([[1.0, 0.1], [2.0, 3.0]])\na = t.numpy()\na[0, 0] = 9\n"
              "print(a, t[0, 0].item(), a.sum(), repr(a[0, 1]), a.dtype, repr(a.dtype), type(a))")
    assert out == ("[[9.  0.1]\n [2.  3. ]] 9.0 14.1 np.float32(0.1) float32 dtype('float32') "
                   "<class 'numpy.ndarray'>\n")


def test_numpy_dtype_is_the_real_dtype_behind_an_allowlist():
    out = run("import torch\nd = torch.ones(2).numpy().dtype\n"
              "print(d, d == 'float32', d.name, d.kind, d.itemsize, d.char, d.str, hasattr(d, 'type'))")
    assert out == "float32 True float32 f 4 f <f4 False\n"
    for attr in ("type", "base", "fields", "descr", "newbyteorder", "subdtype", "metadata"):
        with pytest.raises(PolicyError):
            run(f"import torch\nprint(torch.ones(2).numpy().dtype.{attr})")


@pytest.mark.parametrize("expr", [
    "a.tofile('x')", "a.dump('x')", "a.dumps()", "a.ctypes", "a.view('O')", "a.base", "a.data", "a.flags",
    "a.setflags(write=False)", "a.getfield('f4')", "a.byteswap()", "a.resize(9)", "a.astype('O')",
    "a.astype(str)", "a.sum(dtype='O')", "a.sum(out=a)", "a.flat", "a.sum().tofile('x')", "a[0].view('O')",
])
def test_numpy_escape_hatches_refused(expr):
    with pytest.raises(PolicyError):
        run(f"import torch\na = torch.ones(2).numpy()\nprint({expr})")


def test_from_numpy_and_tensor_accept_snippet_arrays_only():
    assert run("import torch\na = torch.arange(3.0).numpy()\nt = torch.from_numpy(a)\na[0] = 5\n"
               "print(t.tolist(), torch.tensor(a * 2).tolist())") == "[5.0, 1.0, 2.0] [10.0, 2.0, 4.0]\n"
    with pytest.raises(TypeError):
        run("import torch\ntorch.from_numpy(torch.ones(2))")


def test_module_registration_refuses_private_names_and_wrong_types():
    assert run("import torch\nm = torch.nn.Linear(1, 1)\nm.register_buffer('running', torch.zeros(1))\n"
               "print(list(m.state_dict()))") == "['weight', 'bias', 'running']\n"
    for code in ("m.register_buffer('__array_interface__', torch.zeros(1))",
                 "m.add_module('_hidden', torch.nn.Linear(1, 1))",
                 "m.register_parameter('__array__', None)"):
        with pytest.raises(PolicyError):
            run("import torch\nm = torch.nn.Linear(1, 1)\n" + code)
    with pytest.raises(TypeError):
        run("import torch\nm = torch.nn.Linear(1, 1)\nm.register_buffer('x', {'data': (0, False)})")


@pytest.mark.parametrize("stmt", [
    "from torch.autograd.function import once_differentiable, Function, FunctionCtx",
    "import torch.autograd.function", "import torch.autograd.graph", "import torch.autograd.functional",
    "from torch.autograd.functional import jacobian, hessian", "from torch.utils.checkpoint import checkpoint",
    "import torch.nn.init as init", "import torch.nn.functional as F", "from torch.autograd.gradcheck import gradcheck",
    "from torch.autograd.anomaly_mode import detect_anomaly", "from torch import from_numpy",
])
def test_submodules_tutorials_import(stmt):
    assert run(stmt + "\nprint('ok')") == "ok\n"


@pytest.mark.parametrize("stmt", [
    "from torch.autograd.function import FunctionMeta", "from torch.autograd.function import np",
    "from torch.autograd.anomaly_mode import forward_stack", "from torch.utils.checkpoint import warnings",
    "from torch import annotations", "import torch.autograd.grad_mode",
])
def test_submodule_internals_are_not_exported(stmt):
    with pytest.raises(ImportError):
        run(stmt)


def test_warnings_facade_records_without_internals():
    out = run_isolated(
        "import warnings\nimport torch\nwith warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n    warnings.warn('mine', RuntimeWarning)\n"
        "    torch.tensor(torch.ones(1, requires_grad=True))\n"
        "print(len(w), w[0].category, w[0].filename, w[0].lineno, str(w[0].message), w[1].filename, w[1].lineno)")
    assert out == "2 <class 'RuntimeWarning'> <snippet> 5 mine <snippet> 6\n"  # engine warnings point at the caller
    assert run_isolated("import warnings\nwarnings.simplefilter('error')\ntry:\n    warnings.warn('x')\n"
                        "except UserWarning as e:\n    print('caught', e)") == "caught x\n"
    for code in ("warnings.showwarning = print", "print(warnings.filters)", "warnings.warn('x', source=print)",
                 "warnings.simplefilter('error', int)"):
        with pytest.raises((PolicyError, AttributeError, TypeError)):
            run_isolated("import warnings\n" + code)


def test_warning_text_keeps_only_snippet_frames():
    from server.policy.warnfacade import clean_text

    text = ('Error detected in X. Traceback of forward call that caused the error:\n'
            '  File "/srv/app/server/sandbox/zygote.py", line 3, in spare_main\n    self.run()\n'
            '  File "<snippet>", line 7, in <module>\n  File "/srv/engine/ops.py", line 9, in f\n'
            '    return g()\n (Triggered internally at x.cpp:1.)')
    assert clean_text(text) == ('Error detected in X. Traceback of forward call that caused the error:\n'
                                '  File "<snippet>", line 7, in <module>\n (Triggered internally at x.cpp:1.)')


# --- engine capabilities that copy a snippet's dict into an object, and helpers beyond PyTorch's API ---------------
_FAKE_INTERFACE = "{'shape': (8,), 'typestr': '|u1', 'data': (id(w), False), 'version': 3}"
_SCHED = ("import torch\nfrom torch.optim import lr_scheduler as S\nw = torch.ones(1, requires_grad=True)\n"
          "opt = torch.optim.SGD([w], lr=0.1)\n")


@pytest.mark.parametrize("code", [
    f"s = S.StepLR(opt, 1)\ns.load_state_dict({{'__array_interface__': {_FAKE_INTERFACE}}})",
    f"s = S.LambdaLR(opt, lambda e: 1.0)\nsd = s.state_dict()\nsd['lr_lambdas'] = [{{'__array__': 1}}]\n"
    "s.load_state_dict(sd)",
    "s = S.StepLR(opt, 1)\ns.load_state_dict({'new_name': 1})",
    "s = S.StepLR(opt, 1)\ns.load_state_dict({'optimizer': print})",
    "s = S.StepLR(opt, 1)\nS.StepLR.load_state_dict(s, {})",
    "s = S.StepLR(opt, 1)\nsuper(S.StepLR, s).load_state_dict({'__x__': 1})",
    "sd = opt.state_dict()\nsd['param_groups'][0]['hook'] = torch.nn.Linear(1, 1)\nopt.load_state_dict(sd)",
])
def test_state_dicts_hold_plain_data_and_existing_names(code):
    with pytest.raises(PolicyError):
        run(_SCHED + code)


def test_state_dicts_round_trip():
    out = run(_SCHED + "s = S.MultiStepLR(opt, [1, 2])\n(w * 2).sum().backward()\nopt.step()\ns.step()\n"
                       "t = S.MultiStepLR(opt, [5])\nt.load_state_dict(s.state_dict())\n"
                       "opt.load_state_dict(opt.state_dict())\nprint(t.last_epoch, t.get_last_lr())")
    assert out == "1 [0.010000000000000002]\n"


@pytest.mark.parametrize("code", [
    "print(torch.Tensor.mro())",
    "f = super(torch.nn.Linear, torch.nn.Linear).__init__",
    "torch.dtype('evil', 'O', 'x', 'x')",
    "torch.autograd.graph.Node()",
    "y = torch.ones(1, requires_grad=True) * 2\ny.grad_fn = None",
    "dict.update(torch.nn.Linear(1, 1).state_dict(), {})",
    "torch.Generator().uniform(2, 0.0, 1.0, 'O')",
    "torch.Generator.random32(torch.Generator(), 2)",
    "torch.nn.ModuleDict({'__array__': torch.nn.ReLU()})",
    "md = torch.nn.ModuleDict()\nmd['_x'] = torch.nn.ReLU()",
    "m = torch.nn.Linear(1, 1)\nsuper(torch.nn.Linear, m).register_buffer('_x', torch.ones(1))",
    "class H(torch.nn.ModuleDict):\n    def __init__(self):\n"
    "        super(torch.nn.ModuleDict, self).__init__({'_x': torch.nn.ReLU()})\nH()",
    # type_before_parametrizations(x) is type(x): never the metaclass, nor a class snippets may not call
    "from torch.nn.utils.parametrize import type_before_parametrizations as T\nT(torch.nn.Linear)('X', (), {})",
    "from torch.nn.utils.parametrize import type_before_parametrizations as T\nT(torch.float32)('x', 'O', 'x', 'x')",
])
def test_engine_internals_stay_out_of_reach(code):
    with pytest.raises((PolicyError, TypeError, AttributeError)):
        run("import torch\n" + code)


def test_type_before_parametrizations_names_the_class():
    out = run("import torch\nfrom torch.nn.utils import parametrize as P\nm = torch.nn.Linear(2, 2)\n"
              "P.register_parametrization(m, 'weight', torch.nn.Identity())\nT = P.type_before_parametrizations(m)\n"
              "print(T, T == torch.nn.Linear, T.__name__, isinstance(m, T), P.type_before_parametrizations(1))")
    assert out == "<class 'torch.nn.Linear'> True Linear True <class 'int'>\n"


def test_what_tutorials_do_with_those_objects_still_works():
    out = run("import torch\ng = torch.Generator().manual_seed(3)\nprint(g.initial_seed(), g.device)\n"
              "print(torch.dtype, isinstance(torch.float32, torch.dtype), type(torch.float64) == torch.dtype)\n"
              "md = torch.nn.ModuleDict({'fc': torch.nn.Linear(1, 1)})\nmd['act'] = torch.nn.ReLU()\n"
              "print(list(md), dict.fromkeys('ab'), str.upper('x'), list.copy([1]))")
    assert out == ("3 cpu\n<class 'torch.dtype'> True True\n['fc', 'act'] {'a': None, 'b': None} X [1]\n")


# --- io: in-memory files for torch.save / torch.load, and nothing else of the io module -------------------
def test_io_gives_in_memory_files_for_save_and_load():
    out = run("import io\nimport torch\nfrom io import BytesIO, StringIO\nb = io.BytesIO()\n"
              "torch.save({'w': torch.ones(2), 'n': 3}, b)\nb.seek(0)\nprint(torch.load(b), type(b))\n"
              "s = StringIO()\ns.write('hi')\nprint(s.getvalue(), b.tell() > 0, BytesIO(b'ab').read(1))\n"
              "with io.BytesIO() as f:\n    torch.save([torch.zeros(1)], f)\n    f.seek(0)\n    print(torch.load(f))")
    assert out == ("{'w': tensor([1., 1.]), 'n': 3} <class '_io.BytesIO'>\nhi True b'a'\n[tensor([0.])]\n")


@pytest.mark.parametrize("code", [
    "print(io.open)", "print(io.FileIO)", "print(io.TextIOWrapper)", "print(io.open_code)", "print(io.IOBase)",
    "print(io.BufferedReader)", "b = io.BytesIO()\nprint(b.getbuffer())", "b = io.BytesIO()\nprint(b.fileno())",
    "b = io.BytesIO()\nb.readinto(bytes(2))", "b = io.BytesIO()\nprint(b.detach())", "print(io.BytesIO.read)",
    "print(io.BytesIO.getbuffer)", "print(io.StringIO.closed)", "b = io.BytesIO()\nb.name = 'x'",
    "s = io.StringIO()\nprint(s.buffer)", "class F(io.BytesIO):\n    pass", "io.BytesIO = None",
    "from io import open", "from io import FileIO",
])
def test_io_reaches_nothing_but_in_memory_files(code):
    with pytest.raises((PolicyError, AttributeError, ImportError, TypeError)):
        run("import io\n" + code)


@pytest.mark.parametrize("code", ["import io.open", "from io.x import y", "import _io", "import _pyio", "import pickle"])
def test_only_the_io_module_itself_is_importable(code):
    with pytest.raises(PolicyError):
        compile_snippet(code)


def test_torch_load_refuses_files_and_foreign_data():
    for code in ("torch.save(torch.ones(1), 'x.pt')", "torch.load('x.pt')"):
        with pytest.raises(RuntimeError, match="file paths are not available"):
            run("import torch\n" + code)
    with pytest.raises(Exception) as info:  # a pickle stream: refused, never unpickled
        run("import torch, io\ntorch.load(io.BytesIO(b'cbuiltins\\nprint\\n(S\"pwned\"\\ntR.'))")
    assert type(info.value).__name__ == "UnpicklingError"

@pytest.mark.parametrize("stmt", [
    "import torch.distributions as D\nprint(D.Normal(0.0, 1.0).log_prob(torch.tensor(0.0)))",
    "from torch.distributions import Normal, Categorical, kl_divergence\n"
    "print(Categorical(torch.tensor([0.5, 0.5])).entropy(), kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)))",
    "from torch.distributions.normal import Normal\nfrom torch.distributions import constraints\n"
    "print(Normal(0.0, 1.0).entropy(), constraints.positive)",
    "import torch.distributions.multivariate_normal\nfrom torch.distributions.kl import kl_divergence\n"
    "print(torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2)).log_prob(torch.zeros(2)))",
    "from torch.distributions.gamma import Gamma\nfrom torch.distributions.beta import Beta\n"
    "from torch.distributions.dirichlet import Dirichlet\n"
    "print(Gamma(2.0, 1.0).rsample((2,)), Beta(2.0, 3.0).sample(), Dirichlet(torch.ones(3)).rsample())",
    "from torch.func import grad, vmap\nprint(grad(lambda x: (x ** 2).sum())(torch.ones(2)), vmap(torch.dot)(torch.ones(2, 3), torch.ones(2, 3)))",
    "import torch.func\nprint(torch.func.jacrev(torch.sin)(torch.zeros(2)), torch.vmap(lambda a: a * 2)(torch.ones(2)))",
    "from torch.func import functional_call\nm = torch.nn.Linear(2, 1)\n"
    "print(functional_call(m, {'weight': torch.ones(1, 2), 'bias': torch.zeros(1)}, (torch.ones(2),)))",
])
def test_distributions_and_func_import_in_the_sandbox(stmt):
    out = run("import torch\ntorch.manual_seed(0)\n" + stmt)
    assert out and "Error" not in out


@pytest.mark.parametrize("stmt", [
    "from torch.distributions import broadcast_all", "from torch.distributions.normal import math",
    "from torch.func import tree_map", "import torch.func.eager_transforms", "import torch.distributions.poisson",
    "from torch.distributions.dirichlet import _Dirichlet",
])
def test_distributions_and_func_internals_are_not_exported(stmt):
    with pytest.raises((ImportError, PolicyError)):
        run("import torch\n" + stmt)


def test_functional_call_sets_only_tensors_under_public_names():
    base = "import torch\nfrom torch.func import functional_call\nm = torch.nn.Linear(2, 1)\n"
    with pytest.raises(AttributeError):
        run(base + "functional_call(m, {'__array_interface__': torch.ones(1)}, (torch.ones(2),))")
    with pytest.raises(TypeError):
        run(base + "functional_call(m, {'foo': {'data': (0, False)}}, (torch.ones(2),))")
    with pytest.raises(PolicyError):
        run(base + "print(torch.distributions.Normal(0.0, 1.0).__dict__)")


def test_fork_rng_restores_the_stream_in_a_snippet():
    out = run("import torch\ntorch.manual_seed(0)\nwith torch.random.fork_rng():\n    a = torch.rand(2)\n"
              "b = torch.rand(2)\nprint(torch.equal(a, b))")
    assert out == "True\n"
