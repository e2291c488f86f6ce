"""Attack corpus: hostile snippets, each run through the full sandbox by test_attacks.py.

Placeholders replaced before running: @CANARY@ (a file holding a random secret), @MARKER@ (a path no
snippet may create), @DIR@ (the directory holding both).
Each case: (category, name, code, expected statuses). "refused" = {"error"}; a few controls next to
the attacks expect "ok" (what tutorials do with the same objects must keep working).
"""

REFUSED = frozenset({"error"})
ANY = frozenset({"ok", "error", "limit", "timeout"})
OK = frozenset({"ok"})  # controls: what tutorials do next to an attack must keep working
STOPPED = frozenset({"error", "limit", "timeout"})

CASES: list[tuple[str, str, str, frozenset]] = []


def case(category: str, name: str, code: str, expect: frozenset = REFUSED) -> None:
    CASES.append((category, name, code.strip("\n"), expect))


# --- dunder and private attributes -----------------------------------------------------------------
for i, expr in enumerate([
    "().__class__.__bases__[0].__subclasses__()",
    "[].__class__.__mro__[-1].__subclasses__()",
    "''.__class__.__mro__",
    "(lambda: 0).__globals__",
    "(lambda: 0).__code__.co_consts",
    "(lambda: 0).__closure__",
    "print.__self__",
    "len.__self__.open",
    "torch.__dict__",
    "torch.tensor.__globals__['np']",
    "torch.ones(2)._data.tofile('@MARKER@')",
    "torch.ones(2)._extra",
    "torch.ones(2, requires_grad=True).__reduce_ex__(2)",
    "(torch.ones(2, requires_grad=True) * 2).grad_fn._saved",
    "(torch.ones(2, requires_grad=True) * 2).grad_fn._attrs",
    "(torch.ones(2, requires_grad=True) * 2).grad_fn.__class__.__init__.__globals__",
    "torch.Tensor.__init__.__globals__['np']",
    "torch.autograd.__spec__",
    "torch.ones(1).__class__.__base__",
    "(1).__class__.__base__",
    "torch.ones(1).__class__.__class__.__subclasses__()",
    "torch.ones(1).__class__.__dict__",
    "torch.ones(1).__class__.mro()",
    "torch.ones(1).__class__.__call__",
    "torch.ones(1).__class__.__new__",
    "torch.ones(1).__class__.__init__",
    "torch.ones(1).__class__([1.0])",
    "torch.ones(1).__add__.__self__",
    "torch.ones(1).__add__.__func__.__globals__",
    "torch.ones(1).__iadd__.__func__",
    "[].__iadd__",
    "''.__add__",
    "torch.ones(1).__init_subclass__",
    "torch.ones(1).__getattribute__('_data')",
    "torch.__class__.__dict__",
    "torch.nn.Linear.__class__.__subclasses__(torch.nn.Linear.__class__)",
]):
    case("dunder", f"dunder_{i:02d}", f"import torch\nx = {expr}\nprint(x)")
for i, code in enumerate([
    "import torch.autograd.forward_ad as f\nprint(f._state)",
    "import torch.autograd.forward_ad as f\nprint(f.make_dual.__globals__)",
    "import torch.autograd.forward_ad as f\nprint(f.dual_level().__enter__)",
    "import torch\nimport torch.autograd.forward_ad as f\nwith f.dual_level():\n    u = f.unpack_dual(f.make_dual(torch.ones(1), torch.ones(1)))\n    print(u._asdict, u.__class__.__mro__)",
    "import torch\nimport torch.autograd.forward_ad as f\nwith f.dual_level():\n    d = f.make_dual(torch.ones(1), torch.ones(1))\n    print(d._tangent)",
]):
    case("dunder", f"forward_ad_{i:02d}", code)
for i, code in enumerate([
    "import torch\nprint(torch.finfo(torch.float32).__class__.__init__)",
    "import torch\nprint(torch.finfo(torch.float32)._info)",
    "import torch\nprint(torch.finfo.__dict__)",
    "import torch\nprint(torch.finfo(torch.float32).__reduce__())",
    "import torch\nprint(torch.contiguous_format._name, torch.contiguous_format.__reduce__())",
    "import torch\nf = torch.finfo(torch.float32)\nf.eps = 1",
]):
    case("dunder", f"dtype_info_{i:02d}", code)
for i, code in enumerate([
    "import torch\ntorch.backends.cudnn.deterministic = print",
    "import torch\ntorch.backends.cudnn.is_available = lambda: True",
    "import torch\ntorch.backends.cudnn.__dict__ = {}",
    "import torch\ntorch.backends.mha.deterministic = True",
    "import torch\ntorch.tensor = torch.ones",
    "import torch\nsetattr(torch.backends.cudnn, 'benchmark', [1])",
]):
    case("facades", f"module_flags_{i:02d}", code)
case("facades", "module_flags_ok", "import torch\ntorch.backends.cudnn.deterministic = True\n"
     "print(torch.backends.cudnn.deterministic)", OK)
case("dunder", "saved_on_tensor", "import torch\nprint(torch.ones(2)._saved_self)")
case("dunder", "version_on_node", "import torch\ny = torch.ones(2, requires_grad=True) * 2\nprint(y.grad_fn._version)")
case("dunder", "super_self", "import torch\nclass N(torch.nn.Module):\n    def f(self):\n        return super().__self__\n")
case("dunder", "type_name_then_attr", "t = type(1)\nprint(t.__name__)", OK)
case("dunder", "class_name_of_layers", "import torch\nfor m in torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU()):\n"
     "    print(m.__class__.__name__, m.__class__ == torch.nn.ReLU, getattr(m, '__class__'))", OK)
case("dunder", "tensor_operator_method", "import torch\nx = torch.zeros(2)\nx.__iadd__(1)\nprint(x.__add__(x), x.__len__())", OK)
case("dunder", "type_name_then_mro", "t = type(1)\nprint(t.__mro__)")
case("dunder", "type_proxy_call", "t = type(1)\nprint(t('5'))")
case("dunder", "type_three_args", "X = type('X', (), {})\nprint(X)")
case("dunder", "exc_traceback", "try:\n    1/0\nexcept Exception as e:\n    print(e.__traceback__.tb_frame.f_globals)")
case("dunder", "exc_with_traceback", "try:\n    1/0\nexcept Exception as e:\n    print(e.with_traceback(None))")

# --- computed getattr --------------------------------------------------------------------------------
for i, code in enumerate([
    "print(getattr(getattr(1, '__class__'), '__subclasses__'))",
    "print(getattr(getattr, '__self__'))",
    "print(vars())",
    "print(dir())",
    "n = '__subcla' + 'sses__'\nassert not hasattr(1, n) and not hasattr(print, '__self__')\nraise RuntimeError('done')",
    "x = (1).__getattribute__('__class__')",
    "import torch\nprint(torch.Tensor.__getattribute__(torch.ones(1), '_data'))",
    "setattr(print, 'x', 1)",
    "delattr(print, 'x')",
    "import operator\nprint(operator.attrgetter('__class__')(1))",
]):
    case("getattr", f"getattr_{i:02d}", code)
# getattr/setattr with a computed name go through the same guard as `obj.name`
_FN = ("import torch\nclass S(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
       "        ctx.k = 2\n        return x * 2\n    @staticmethod\n    def backward(ctx, g):\n        return g * 2\n"
       "y = S.apply(torch.ones(2, requires_grad=True))\n")
for i, code in enumerate([
    "import torch\nprint(getattr(torch.ones(2), '_' + 'data'))",
    "import torch\nprint(getattr(torch, 'n' + 'p'))",
    "import torch\nprint(getattr(torch.ones(2), 'untyped_storage'))",
    "import torch\nm = torch.nn.Linear(1, 1)\nprint(getattr(m, '_modules'))",
    "import torch\nm = torch.nn.Linear(1, 1)\nsetattr(m, '_parameters', {})",
    "import torch\nsetattr(torch, 'ones', print)",
    "import torch\nsetattr(torch.ones(1), '__class__', int)",
    "def f():\n    pass\nsetattr(f, '__name__', 'g')",
    "def f():\n    pass\nprint(getattr(f, '__globals__'))",
    "print(getattr(type(1), '__mro__'))",
    "print(getattr(int, '__subclasses__')())",
    "print(getattr(print, '__self__', 1))",
    "print(getattr(1, '__dict__', None))",
    _FN + "print(getattr(y.grad_fn, 'ctx'))",
    _FN + "print(y.grad_fn.function)",
    _FN + "print(getattr(y.grad_fn, '_saved'))",
    _FN + "print(y.grad_fn.k.__class__.__bases__)",
    "import torch\nprint(torch.Tensor.__name__.__class__.__mro__)",
    "import torch\nprint(getattr(getattr(torch.Tensor.__name__, '__class__'), 'mro')())",
]):
    case("getattr", f"computed_{i:02d}", code)
for i, code in enumerate([  # controls
    "import torch\nx = torch.ones(2, requires_grad=True)\nfor n in ['sin', 'exp']:\n    print(getattr(torch, n)(x))",
    "import torch\nprint(getattr(torch.ones(1), 'nope', 'default'), getattr(torch.nn.functional, 'relu').__name__)",
    _FN + "print(y.grad_fn.k, getattr(y.grad_fn, 'k'), type(y.grad_fn).__name__)",
    "import torch\nfor cls in [torch.optim.SGD, torch.nn.Linear]:\n    print(cls.__name__)",
    "import torch\nm = torch.nn.Linear(1, 1)\nsetattr(m, 'scale', 2.0)\nprint(m.scale)",
]):
    case("getattr", f"computed_ok_{i:02d}", code, OK)
case("getattr", "hasattr_dunder_is_false", "print(hasattr(1, '__dict__'), hasattr(1, '_x'))\nraise RuntimeError('done')")

# --- format-string attribute access -----------------------------------------------------------------
for i, code in enumerate([
    "print('{0.__class__}'.format(1))",
    "s = '{0.__globals__}'\nprint(s.format(lambda: 0))",
    "s = '{0[np]}'\nimport torch\nprint(s.format(torch.__dict__))",
    "print(str.format('{0.__class__.__mro__}', 1))",
    "print('{x.__class__}'.format_map({'x': 1}))",
    "print(f'{(1).__class__.__mro__}')",
    "s = '{:{0.__class__}}'\nprint(s.format(1))",
    "fmt = '{0.real.__class__}'\nprint(fmt.format(1))",
    "m = 'format_map'\nprint(getattr('{x}', m))",
]):
    case("format", f"format_{i:02d}", code)
case("format", "format_builtin_ok", "print(format(0.25, '.1%'), format(3, '05d'), format(1, ''))\nraise RuntimeError('done')")
case("format", "format_builtin_spec_is_not_a_template", "print(format(1, '{0.__class__}'))")
case("format", "format_builtin_tensor_template", "import torch\nprint(format(torch.ones(2), '{0.__class__}'))")
case("format", "format_plain_ok", "print('{:.3f} {} {x}'.format(3.14159, 2, x=3))\nraise RuntimeError('done')")

# --- frames, generators, tracebacks ---------------------------------------------------------------------
for i, code in enumerate([
    "g = (i for i in range(3))\nprint(g.gi_frame.f_globals)",
    "g = (i for i in range(3))\nprint(g.gi_code)",
    "def f():\n    yield 1\ng = f()\nprint(g.gi_frame.f_back)",
    "def f():\n    yield from [1]\ng = f()\nnext(g)\nprint(g.gi_yieldfrom)",
    "def f():\n    x = yield 1\ng = f()\nnext(g)\ng.send(2)",
    "def f():\n    yield 1\ng = f()\ng.throw(ValueError)",
    "def f():\n    yield 1\ng = f()\ng.close()",
    "def f():\n    yield 1\nprint(f().gi_running, f().gi_suspended)",
    "def f():\n    yield 1\nprint(type(f()).__mro__)",
    "def f():\n    yield 1\nprint(getattr(f(), 'gi_' + 'frame'))",
    "def f():\n    yield 1\nprint(f().__reduce__())",
    "g = (i for i in range(3))\nprint(g.send(None), g.throw)",
    "f = lambda: 0\nprint(f.f_back)",
    "try:\n    1/0\nexcept Exception as e:\n    tb = e.__traceback__\n    print(tb.tb_next)",
    "import sys\nprint(sys._getframe(0).f_globals)",
    "import inspect\nprint(inspect.currentframe())",
    "async def f():\n    await g()\n",
    "g = (i for i in range(3))\nx = g.gi_yieldfrom",
    "x = lambda: (yield)\nprint(x().gi_frame)",
]):
    case("frames", f"frames_{i:02d}", code)
# Generator functions run (a tutorial's batch generator); their objects hand out nothing but iteration.
case("frames", "generator_function_ok", "def batches(n):\n    for i in range(n):\n        yield i * 2\n"
     "    yield from [10, 11]\nprint(list(batches(3)), next(iter(batches(1))))", OK)
# A generator's `finally` runs when the generator is dropped, inside the run and under its limits.
case("frames", "generator_finally_loop", "def f():\n    try:\n        yield 1\n    finally:\n        while True:\n"
     "            pass\ng = f()\nnext(g)\ndel g\n", ANY)
case("frames", "generator_cycle_finalizer", "def f():\n    try:\n        yield 1\n    finally:\n"
     "        print('x' * 100000)\nfor i in range(1000):\n    g = f()\n    next(g)\n    box = [g]\n    box.append(box)\n", ANY)

# --- builtins lookups ----------------------------------------------------------------------------------
for i, code in enumerate([
    "print(__builtins__)",
    "b = __builtins__\nprint(b['open'])",
    "__import__('os').system('touch @MARKER@')",
    "print(globals())",
    "print(locals())",
    "eval('1+1')",
    "exec('import os')",
    "compile('1', '', 'exec')",
    "open('@CANARY@').read()",
    "breakpoint()",
    "input()",
    "help(print)",
    "exit()",
    "quit()",
    "print(memoryview(b'x'))",
    "x = object.__subclasses__()",
    "print(_getattr_)",
    "_getattr_ = lambda o, n: o\n",
    "print(__metaclass__)",
    "del __builtins__",
    "def f():\n    global __builtins__\n    __builtins__ = {}\n",
    "print(printed)\n" * 1,
]):
    case("builtins", f"builtins_{i:02d}", code, REFUSED if i != 21 else ANY)

# --- imports -------------------------------------------------------------------------------------------
for i, code in enumerate([
    "import os\nos.system('touch @MARKER@')",
    "import sys\nprint(sys.modules)",
    "import subprocess\nsubprocess.run(['touch', '@MARKER@'])",
    "import socket\nsocket.create_connection(('127.0.0.1', 80))",
    "import importlib\nimportlib.import_module('os')",
    "from os import system\nsystem('touch @MARKER@')",
    "import numpy\nnumpy.ones(3).tofile('@MARKER@')",
    "import numpy.random",
    "from numpy import lib",
    "import builtins\nbuiltins.open('@CANARY@')",
    "import ctypes",
    "from torch import observe",
    "import torch.tensor",
    "import torch.os",
    "from torch import np",
    "from torch import numpy",
    "import math.sys",
    "from . import x",
    "from torch import *",
    "import pickle\npickle.loads(b'')",
    "import engine\nprint(engine)",
    "import engine.tensor",
    "import torch.autograd.grad_mode",
    "from math import __loader__",
    "import torch\nprint(torch.tensor.__module__)",
    "import torch as _t\n",
]):
    case("imports", f"imports_{i:02d}", code)

# --- numpy escape hatches ----------------------------------------------------------------------------------
for i, code in enumerate([
    "import torch\nx = torch.ones(3)\nx.numpy().tofile('@MARKER@')",
    "import torch\nx = torch.ones(3)\nx.data.numpy().tofile('@MARKER@')",
    "import torch\nx = torch.ones(3)\nn = 'numpy'\ngetattr(x, n)().tofile('@MARKER@')",
    "import torch\nprint(torch.float32.np)",
    "import torch\nprint(torch.ones(2).dtype.np.type)",
    "import torch\nx = torch.ones(2)\nprint(x.__array__())",
    "import torch\nx = torch.ones(2)\nprint(x.__array_interface__)",
    "import torch\nprint(torch.from_numpy(torch.ones(2)))",
    "import torch\ny = torch.ones(2, requires_grad=True) * 2\nprint(y.grad_fn.rule)",
    "import torch\ny = torch.ones(2, requires_grad=True) * 2\nprint(y.grad_fn.unpack('self', False))",
    "import torch\ny = torch.ones(2, requires_grad=True) * 2\nprint(y.grad_fn.apply_backward)",
    "import torch\nprint(torch.np)",
    "import torch\nprint(torch.ones(2).storage())",
    "import torch\nprint(torch.ones(2).untyped_storage())",
    "import torch\nfrom torch import dtypes\n",
    "import torch\nx = torch.ones(2)\nprint(x.dtype.np.__class__)",
    "import torch\nf = torch.Tensor.numpy\nprint(f(torch.ones(2)))",
    "import torch\nprint(torch.Tensor.__dict__['numpy'])",
]):
    case("numpy", f"numpy_{i:02d}", code)

# --- unicode look-alikes -------------------------------------------------------------------------------
for i, code in enumerate([
    "\uff45\uff56\uff41\uff4c('1')",                         # fullwidth eval
    "x = 1\nprint(x.\uff3f\uff3fclass\uff3f\uff3f)",          # fullwidth low lines
    "\u212fval = 1\nprint(\u212fval)",                         # script small e
    "p\u043eint = 1\n",                                        # Cyrillic o
    "x = 1\nprint(f'{\uff58}')",                               # fullwidth x inside an f-string
    "\ufb01le = 3\n",                                          # fi ligature
    "import torch\nx = torch.ones(1)\nprint(x.num\u0440y())",  # Cyrillic p
]):
    case("unicode", f"unicode_{i:02d}", code)

# --- metaclasses and classes ------------------------------------------------------------------------------
for i, code in enumerate([
    "class X(metaclass=type):\n    pass",
    "class X:\n    def __getattr__(self, n):\n        return n",
    "class X(object):\n    def __del__(self):\n        pass",
    "class X:\n    def __init_subclass__(cls):\n        pass",
    "class X:\n    def __set_name__(self, owner, name):\n        pass",
    "class X:\n    def __eq__(self, other):\n        return other.__dict__",
    "class X:\n    pass\nprint(X.__subclasses__())",
    "class X:\n    pass\nprint(X().__dict__)",
    "class X:\n    pass\nprint(X.__mro__[1].__subclasses__())",
    "class X:\n    pass\nprint(X.mro())",
    "class X:\n    pass\nclass Y(X, dict):\n    pass",
    "class X:\n    def __init__(self):\n        self.__secret = 1",
    "class X:\n    __slots__ = ('a',)",
    "class X:\n    f = print\nX().f('hi')\nprint(X.f.__self__)",
    "class X:\n    def get(self):\n        return self.get.__func__.__globals__\nprint(X().get())",
    "print(object.__subclasses__())",
    "print(object.mro())",
    "print(getattr(object, '__subclasses__')())",
    "print(object().__reduce_ex__(2))",
    "o = object()\no.x = 1",
    "import torch\nclass X(torch.Tensor):\n    pass",
    "import torch\nclass X(torch.autograd.Function):\n    def __init_subclass__(cls):\n        pass",
    "import torch\nclass X(torch.autograd.Function):\n    __slots__ = ()",
    "import torch\nclass X(torch.autograd.Function):\n    def __getattr__(self, n):\n        return n",
    "import torch\nclass X(torch.autograd.Function):\n    def __reduce__(self):\n        return 1",
    "import torch\nM = type(torch.autograd.Function)\nclass X(M):\n    pass",
    "import torch\nclass X(*[torch.autograd.Function]):\n    pass",
    "import torch\nclass X(torch.autograd.Function, metaclass=type):\n    pass",
    "import torch\nbases = (torch.autograd.Function,)\nclass X(bases[0]):\n    pass",
    "class X(type(1)):\n    pass",
]):
    case("metaclass", f"metaclass_{i:02d}", code)
for i, code in enumerate([  # controls: plain helper classes, as tutorials write them
    "class Counter:\n    def __init__(self):\n        self.n = 0\n    def add(self, k=1):\n        self.n += k\n"
    "        return self\nc = Counter().add().add(2)\nprint(c.n, type(c).__name__, c.__class__.__name__)",
    "import torch\nclass Trainer(object):\n    def __init__(self, w):\n        self.w = w\n    @torch.no_grad()\n"
    "    def step(self, lr):\n        self.w -= lr * self.w.grad\nw = torch.ones(2, requires_grad=True)\n"
    "(w * w).sum().backward()\nTrainer(w).step(0.1)\nprint(w)",
    "class Base:\n    scale = 2\n    def f(self, x):\n        return x * self.scale\nclass Child(Base):\n"
    "    def f(self, x):\n        return super().f(x) + 1\nprint(Child().f(3), isinstance(Child(), Base))",
]):
    case("metaclass", f"plain_class_ok_{i:02d}", code, OK)

# --- decorators ---------------------------------------------------------------------------------------------
for i, code in enumerate([
    "@(lambda f: f)\ndef g():\n    pass",
    "import torch\n@torch.tensor\ndef g():\n    pass",
    "@staticmethod\ndef g():\n    pass",
]):
    case("decorators", f"decorators_{i:02d}", code)
# `@d class X` is `X = d(X)`: what it makes is checked like any other value
case("decorators", "class_decorator_engine_class",
     "import torch\n@torch.autograd.Function\nclass X(torch.autograd.Function):\n    pass\nprint(X.__dict__)")

# --- the `numpy` facade: allowlisted numeric functions, every argument and result checked -----------------
for i, code in enumerate([
    "import numpy as np\nnp.save('@MARKER@', np.ones(2))",
    "import numpy as np\nprint(np.load('@CANARY@'))",
    "import numpy as np\nprint(np.fromfile('@CANARY@'))",
    "import numpy as np\nprint(np.loadtxt('@CANARY@'))",
    "import numpy as np\nprint(np.memmap('@CANARY@'))",
    "import numpy as np\nprint(np.genfromtxt('@CANARY@'))",
    "import numpy as np\nprint(np.lib, np.ctypeslib)",
    "import numpy as np\nprint(np.random.seed(0))",
    "import numpy as np\nprint(np.core)",
    "import numpy as np\nprint(np.frombuffer(b'abcdefgh'))",
    "import numpy as np\nprint(np.vectorize(print))",
    "import numpy as np\nprint(np.set_printoptions(formatter={'all': print}))",
    "import numpy as np\nprint(np.array(['@CANARY@']))",
    "import numpy as np\nprint(np.array([1, 2], dtype=object))",
    "import numpy as np\nprint(np.zeros(2, 'O'))",
    "import numpy as np\nprint(np.dtype([('a', 'f4')]))",
    "import numpy as np\nprint(np.dtype('O'))",
    "import numpy as np\nprint(np.array(print))",
    "import numpy as np\nimport torch\nprint(np.array(torch))",
    "import numpy as np\nimport torch\nprint(np.array([torch.nn.Linear(1, 1)]))",
    "import numpy as np\nprint(np.ones(2, out=np.zeros(2)))",
    "import numpy as np\nprint(np.add(1, 2, where=True))",
    "import numpy as np\nprint(np.exp.reduce)",
    "import numpy as np\nprint(np.exp.__call__)",
    "import numpy as np\nprint(getattr(np.exp, '_fn'))",
    "import numpy as np\nprint(np.float32.mro())",
    "import numpy as np\nprint(np.float32.fromhex)",
    "import numpy as np\nprint(np.ndarray(3))",
    "import numpy as np\nprint(np.ndarray.tofile)",
    "import numpy as np\nnp.pi = 3",
    "import numpy as np\nsetattr(np, 'exp', print)",
    "import numpy as np\nprint(np.linalg.lapack_lite)",
    "import numpy as np\nprint(np.dtype(np.float32).type)",
    "import numpy as np\nprint(np.arange(3).ctypes)",
    "import numpy as np\nprint(np.einsum('i' * 100, np.ones(1)))",
    "import numpy as np\nprint(np.array([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]))",
    "import numpy as np\nimport torch\nx = torch.ones(2, requires_grad=True)\nprint(np.array(x))",
    "import numpy as np\nprint(type(np.float32(1)).__mro__)",
]):
    case("numpy_facade", f"numpy_facade_{i:02d}", code)
case("numpy_facade", "numpy_facade_huge", "import numpy as np\nprint(np.zeros(1 << 40))", STOPPED)
# --- container item methods and `collections`: only what tutorials need ------------------------------
for i, code in enumerate([
    "print({}.__setitem__.__self__)",
    "import torch\nt = torch.ones(2)\nf = t.__setitem__\nprint(f.__self__)",
    "import torch\nprint(getattr(torch.nn.Linear(1, 1), '__getitem__'))",
    "print(getattr(print, '__getitem__'))",
    "print(getattr([].__getitem__, '__self__'))",
    "print(''.__getitem__)",
    "from collections import namedtuple\nP = namedtuple('P', 'x')",
    "import torch\nimport collections\nw = torch.ones(1, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
    "print(isinstance(opt.state, collections.defaultdict), opt.state.items())",
    "import collections\nprint(collections.abc)",
    "from collections import OrderedDict\nprint(OrderedDict.__init__)",
    "from collections import OrderedDict\nclass D(OrderedDict):\n    pass",
    "from collections import OrderedDict\nprint(OrderedDict.fromkeys)",
    "import collections.abc",
    "from collections import OrderedDict\nd = OrderedDict(a=1)\nd['b'] = 2",
]):
    case("containers", f"containers_{i:02d}", code)
for i, code in enumerate([  # controls
    "acts = {}\nf = acts.__setitem__\nf('a', 1)\nprint(acts, [3, 4].__getitem__(0))",
    "import torch\nfrom collections import OrderedDict\n"
    "net = torch.nn.Sequential(OrderedDict([('fc', torch.nn.Linear(2, 1)), ('act', torch.nn.ReLU())]))\nprint(net.fc)",
]):
    case("containers", f"containers_ok_{i:02d}", code, OK)
case("containers", "containers_engine_defaultdict_write",
     "import torch\nw = torch.ones(1, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\nopt.state[w] = 1")

# --- user classes: Function, Module, and Dataset/Sampler with the container protocol only ------------------
_DS = "import torch\nfrom torch.utils.data import Dataset\n"
for i, code in enumerate([
    _DS + "class D(Dataset):\n    def __getattr__(self, n):\n        return n",
    _DS + "class D(Dataset):\n    def __array_interface__(self):\n        return {}",
    _DS + "class D(Dataset):\n    __getitem__ = print",
    _DS + "class D(Dataset):\n    def __del__(self):\n        pass",
    _DS + "class D(Dataset):\n    def __init_subclass__(cls):\n        pass",
    _DS + "class D(Dataset):\n    def __reduce__(self):\n        return (print, ('x',))",
    _DS + "class D(Dataset):\n    def __class_getitem__(cls, k):\n        return k",
    _DS + "def __len__():\n    return 1",
    "import torch\nclass L(torch.utils.data.DataLoader):\n    pass",
    "import torch\nclass G(torch.Generator):\n    pass",
    _DS + "class D(Dataset):\n    def __getitem__(self, i):\n        return torch\n"
    "import numpy as np\nprint(np.array(D()))",
    _DS + "class D(Dataset):\n    def __len__(self):\n        return 2\n    def __getitem__(self, i):\n        return print\n"
    "print(torch.tensor(D()))",
]):
    case("metaclass", f"user_class_{i:02d}", code)
case("metaclass", "user_dataset_ok", _DS + "class D(Dataset):\n    def __len__(self):\n        return 3\n"
     "    def __getitem__(self, i):\n        return torch.tensor(float(i))\n    def __iter__(self):\n"
     "        return iter([self[0]])\nprint(len(D()), D()[2], list(torch.utils.data.DataLoader(D(), batch_size=2)))", OK)

for i, code in enumerate([  # controls: what tutorials do with NumPy
    "import numpy as np\nimport torch\na = np.array([1.0, 2.0])\nt = torch.from_numpy(a)\na[0] = 5\nprint(t, np.allclose(t, a))",
    "import numpy as np\nimport torch\nx = torch.tensor(np.linspace(0, 1, 5), dtype=torch.float32, requires_grad=True)\n"
    "(x ** 2).sum().backward()\nprint(np.round(x.grad.numpy(), 3), x.grad.numpy().dtype == np.float32)",
    "import numpy as np\nm = np.array([[2.0, 1.0], [1.0, 3.0]])\nprint(np.linalg.inv(m) @ m, np.linalg.svd(m)[1], np.einsum('ij->j', m))",
]):
    case("numpy_facade", f"numpy_facade_ok_{i:02d}", code, OK)

# --- default-argument tricks -----------------------------------------------------------------------------------
for i, code in enumerate([
    "def f(x=print.__self__):\n    return x",
    "def f(x=[].append(1)):\n    return x",
    "f = lambda x=(lambda: 0)(): x",
    "def f(*, k=delattr):\n    return k",
    "def f(x=__builtins__):\n    return x",
    "def f(_getattr_=None):\n    return 1",
    "def f(x={}.get('a')):\n    return x",
]):
    case("defaults", f"defaults_{i:02d}", code)

# --- files: read and write ----------------------------------------------------------------------------------------
for i, code in enumerate([
    "print(open('@CANARY@').read())",
    "with open('@CANARY@') as f:\n    print(f.read())",
    "import io\nprint(io.open('@CANARY@').read())",
    "import pathlib\nprint(pathlib.Path('@CANARY@').read_text())",
    "import torch\nprint(torch.load('@CANARY@'))",
    "open('@MARKER@', 'w').write('x')",
    "import torch\ntorch.save(torch.ones(1), '@MARKER@')",
    "import shutil\nshutil.copy('@CANARY@', '@MARKER@')",
    "print('x', file=open('@MARKER@', 'w'))",
    "print('x', file=None)\nprint('y', file=1)",
    "import linecache\nprint(linecache.getlines('@CANARY@'))",
    "import torch\nprint(torch.from_file('@CANARY@'))",
]):
    case("files", f"files_{i:02d}", code)

# --- sockets, subprocesses, exec ----------------------------------------------------------------------------------------
for i, code in enumerate([
    "import socket\ns = socket.socket()",
    "s = __import__('socket')",
    "import urllib.request\nurllib.request.urlopen('http://127.0.0.1')",
    "import subprocess\nsubprocess.Popen(['id'])",
    "import os\nos.execv('/bin/sh', ['sh'])",
    "import os\nos.fork()",
    "import multiprocessing\nmultiprocessing.Process(target=print).start()",
    "import pty\npty.spawn('/bin/sh')",
    "import threading\nthreading.Thread(target=print).start()",
    "import signal\nsignal.alarm(0)",
]):
    case("process", f"process_{i:02d}", code)

# --- mutating shared state (each is followed by a check run in the test) ------------------------------------------
for i, code in enumerate([
    "import torch\ntorch.ones = None",
    "import torch\ndel torch.tensor",
    "import torch\ntorch.Tensor.add = None",
    "import torch\ntorch.Tensor.foo = 1",
    "import torch\ntorch.autograd.Function.apply = None",
    "import torch\ntorch.float32.itemsize = 99",
    "import math\nmath.pi = 3",
    "import torch\nx = torch.ones(1)\nx.__class__ = int",
]):
    case("persistence", f"persistence_{i:02d}", code)
case("persistence", "grad_mode_off", "import torch\ntorch.set_grad_enabled(False)\nprint(torch.is_grad_enabled())", ANY)
case("persistence", "global_var", "counter = 41\nprint(counter)", ANY)

# --- odds and ends ----------------------------------------------------------------------------------------------------------
for i, code in enumerate([
    "try:\n    while True:\n        pass\nexcept BaseException:\n    print('swallowed')",
    "raise SystemExit(0)",
    "raise KeyboardInterrupt",
    "match 1:\n    case 1:\n        pass",
    "try:\n    pass\nexcept* Exception:\n    pass",
    "x = [1]\nx.__delitem__(0)",
    "import torch\nx = torch.ones(2)\nprint(x.__setitem__.__func__)",
    "print(*(1,), **{'file': 1})",
    "printed = 1",
    "l = []\nl.__class__.append = None",
]):
    case("misc", f"misc_{i:02d}", code)

# --- NumPy arrays handed out by .numpy(): fresh numeric copies behind an attribute allowlist ------------------------
_ARR = "import torch\na = torch.arange(6.0).reshape(2, 3).numpy()\n"
for i, code in enumerate([
    "a.tofile('@MARKER@')",
    "a.dump('@MARKER@')",
    "print(a.dumps())",
    "print(a.ctypes.data)",
    "c = a.ctypes\nprint(c)",
    "print(a.view(dict))",
    "print(a.view('O'))",
    "print(a.view())",
    "o = a.astype(dict)\nprint(o.tolist())",
    "o = a.astype('O')\nprint(o[0, 0])",
    "print(a.astype(str))",
    "print(a.astype('V8'))",
    "print(a.astype('(2,)f8'))",
    "print(a.astype('M8[s]'))",
    "print(a.astype(dtype=list))",
    "print(a.base)",
    "print(a.T.base)",
    "print(a.data)",
    "print(bytes(a.data))",
    "print(a.flags)",
    "a.setflags(write=False)",
    "print(a.getfield('f8'))",
    "a.setfield(1.0, 'f8')",
    "print(a.byteswap())",
    "print(a.newbyteorder())",
    "a.resize(100)",
    "print(a.__array_interface__)",
    "print(a.__reduce__())",
    "print(a.__reduce_ex__(2))",
    "print(a.__class__.__bases__)",
    "print(a.dtype.type)",
    "print(a.dtype.type(5))",
    "print(a.dtype.fields, a.dtype.descr)",
    "print(a.dtype.newbyteorder())",
    "print(a.dtype.base)",
    "print(a.dtype.__class__.__mro__)",
    "print(a.sum(dtype=tuple))",
    "print(a.sum(0, dict))",
    "print(a.sum(0, 'O'))",
    "b = a.copy()\nprint(a.sum(0, None, b))",
    "b = a.copy()\nprint(a.sum(out=b))",
    "print(a.clip(0, 1, out=a))",
    "print(a.clip(0, 1, casting='unsafe', dtype='O'))",
    "m = a.sum\nprint(m.__self__)",
    "m = a.sum\nprint(m.target)",
    "print(f'{a.ctypes}')",
    "print('{0.ctypes}'.format(a))",
    "a.shape = (3, 2)",
    "a.dtype = 'int64'",
    "a.strides = (0, 0)",
    "a[0, 0] = print",
    "o = a + [print]\nprint(o.tolist())",
    "o = a * [None]\nprint(o)",
    "s = a.sum()\ns.tofile('@MARKER@')",
    "s = a.sum()\nprint(s.data, s.base)",
    "s = a.sum()\nprint(s.view(dict))",
    "s = a.sum()\nprint(s.dtype.type)",
    "s = a[0, 0]\nprint(s.__reduce__())",
    "t = type(a)\nprint(t(3))",
    "t = type(a.sum())\nprint(t('1'))",
    "print(torch.from_numpy(torch.ones(2)))",
    "print(torch.from_numpy([1.0, 2.0]))",
    "f = torch.Tensor.numpy\nprint(f(torch.ones(2)))",
    "n = torch.ones(2).numpy\nprint(n.__self__)",
    "state = torch.get_rng_state()\nfor part in state[1]['state'].values():\n    part.tofile('@MARKER@')",
]):
    case("numpy_arrays", f"array_{i:02d}", _ARR + code)
for i, code in enumerate([  # the same escapes through the object dtype, spelled the ways numpy accepts it
    "print(a.astype('object'))",
    "print(a.astype('|O'))",
    "print(a.astype([('x', 'f8')]))",
    "print(a.round(0, 'O'))",
    "print(a.cumsum(0, 'O'))",
    "print(a.reshape(6).astype(a.dtype).view('O'))",
]):
    case("numpy_arrays", f"array_object_{i:02d}", _ARR + code)
case("numpy_arrays", "array_huge_broadcast",
     "import torch\na = torch.ones(3000).numpy()\nb = a.reshape(-1, 1, 1) * a.reshape(-1, 1) * a\nprint(b.sum())",
     frozenset({"error", "limit", "timeout"}))

# --- nn.Module registries: Module.__getattr__ serves registered names, NumPy reads __array_interface__ --------------
_FAKE = "{'shape': (64,), 'typestr': '|u1', 'data': (id(secret), False), 'version': 3}"
for i, code in enumerate([
    f"class M(nn.Module):\n    pass\nm = M()\nm.register_buffer('__array_interface__', {_FAKE})\nprint(bytes(torch.tensor(m).tolist()))",
    f"m = nn.Linear(1, 1)\nm.add_module('__array_interface__', {_FAKE})\nprint(torch.tensor(m))",
    f"m = nn.Linear(1, 1)\nm.register_module('__array_interface__', nn.Linear(1, 1))\nprint(torch.tensor(m))",
    f"m = nn.Linear(1, 1)\nm.register_parameter('__array_struct__', None)\nprint(m)",
    f"m = nn.Linear(1, 1)\nm.register_buffer('fake', {_FAKE})",
    f"m = nn.Linear(1, 1)\nnn.Module.register_buffer(m, '__array_interface__', {_FAKE})\nprint(torch.tensor(m))",
    f"m = nn.Sequential()\nm.add_module('__array__', nn.Linear(1, 1))\nprint(torch.tensor(m))",
    f"sd = nn.Linear(1, 1).state_dict()\nsd['__array_interface__'] = {_FAKE}\nprint(torch.tensor(nn.Sequential(sd)))",
    f"m = nn.Linear(1, 1)\nm.__array_interface__ = {_FAKE}\nprint(torch.tensor(m))",
    f"a = torch.ones(2).numpy()\nm = nn.Linear(1, 1)\nm.register_buffer('__array_interface__', {_FAKE})\nprint(a + m)",
]):
    case("modules", f"module_registry_{i:02d}", "import torch\nimport torch.nn as nn\nsecret = 'x' * 40\n" + code)

# --- the warnings facade --------------------------------------------------------------------------------------------
_W = "import warnings\n"
for i, code in enumerate([
    "warnings.showwarning = print",
    "print(warnings.showwarning)",
    "print(warnings._showwarnmsg_impl)",
    "print(warnings.filters)",
    "print(warnings.WarningMessage)",
    "print(warnings.__dict__)",
    "print(warnings.sys)",
    "warnings.formatwarning = print",
    "del warnings.warn",
    "cw = warnings.catch_warnings()\nprint(cw._real)",
    "cw = warnings.catch_warnings()\nprint(cw.log, cw.record)",
    "cw = warnings.catch_warnings(record=True)\nprint(cw._module)",
    "print(warnings.catch_warnings.__enter__)",
    "print(warnings.catch_warnings.__init__.__globals__)",
    "cw = warnings.catch_warnings(record=True)\ncw.x = 1",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nprint(w[0].message.__traceback__)",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nprint(w[0].message.with_traceback(None))",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nprint(w[0].file)",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nprint(w[0]._category_name)",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nw[0].filename = '@CANARY@'",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nprint(w[0].category.mro())",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nprint(w[0].category.__subclasses__())",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nprint(w[0].__class__.__init__)",
    "with warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nprint(w[0].message.__class__.__base__)",
    "warnings.warn('x', source=print)",
    "warnings.simplefilter('error', category=int)",
    "warnings.simplefilter('explode')",
    "warnings.filterwarnings('ignore', message=print)",
    "warnings.warn('x', type(1))",
    "import warnings.catch_warnings",
    "from warnings import *",
    "from warnings import showwarning",
    "from warnings import _showwarnmsg",
    "import warnings as w\nprint(w.__spec__)",
    "warnings.simplefilter('error')\ntry:\n    warnings.warn('x')\nexcept UserWarning as e:\n    print(e.__traceback__.tb_frame)",
]):
    case("warnings", f"warnings_{i:02d}", _W + code)

# --- torch submodule facades ----------------------------------------------------------------------------------------
for i, code in enumerate([
    "from torch.autograd.function import *",
    "from torch.autograd.function import FunctionMeta",
    "from torch.autograd.function import np",
    "from torch.autograd.function import unpack_saved",
    "from torch.autograd.function import SavedTensor",
    "from torch.autograd.function import observe",
    "from torch.autograd.function import edge_to",
    "from torch.autograd.function import CustomNode",
    "from torch.autograd.anomaly_mode import forward_stack",
    "from torch.autograd.anomaly_mode import traceback",
    "from torch.autograd.anomaly_mode import os",
    "from torch.autograd.gradcheck import np",
    "from torch.utils.checkpoint import warnings",
    "from torch.utils.checkpoint import CheckpointFunction",
    "from torch.nn.init import creation",
    "from torch.nn.init import math",
    "from torch.optim import np",
    "from torch.random import np",
    "from torch import annotations",
    "import torch.autograd.function as F\nprint(F.__dict__)",
    "import torch.autograd.function as F\nprint(F.np)",
    "import torch\nprint(torch.autograd.function.__dict__)",
    "import torch\nprint(torch.utils.checkpoint.__spec__)",
    "import torch\nM = type(torch.autograd.Function)\nprint(M('X', (), {}))",
    "import torch\nprint(torch.autograd.Function.__class__.__subclasses__)",
    "import torch\nprint(torch.from_numpy.__class__.__dict__)",
    "import torch\nprint(torch.from_numpy._fn)",
    "import torch\nx = torch.ones(1)\nprint(x.numpy._fn)",
    "import torch.autograd.grad_mode",
    "import torch.autograd.function.np",
    "from torch.autograd.functional import np",
    "from torch.autograd.graph import warnings",
]):
    case("facades", f"facades_{i:02d}", code)

# --- state dicts: schedulers copy a loaded dict into their __dict__, where NumPy reads __array_interface__ ----------
_SD = ("import torch\nimport torch.nn as nn\nfrom torch.optim import lr_scheduler as S\nsecret = 'x' * 40\n"
       f"fake = {_FAKE}\n"
       "w = torch.ones(1, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n")
for i, code in enumerate([
    "s = S.StepLR(opt, 1)\ns.load_state_dict({'__array_interface__': fake})\nprint(bytes(torch.tensor(s).tolist()))",
    "f = lambda e: 1.0\ns = S.LambdaLR(opt, f)\nsd = s.state_dict()\nsd['lr_lambdas'] = [{'__array_interface__': fake}]\n"
    "s.load_state_dict(sd)\nprint(bytes(torch.tensor(f).tolist()))",
    "f = lambda x: 1.0\ns = S.CyclicLR(opt, 0.01, 0.1, scale_fn=f)\nsd = s.state_dict()\n"
    "sd['_scale_fn_custom'] = {'__array_interface__': fake}\ns.load_state_dict(sd)\nprint(torch.tensor(f))",
    "s = S.SequentialLR(opt, [S.ConstantLR(opt), S.StepLR(opt, 1)], milestones=[1])\nsd = s.state_dict()\n"
    "inner = sd['_schedulers']\ninner[1]['__array_interface__'] = fake\ns.load_state_dict(sd)\nprint('loaded')",
    "s = S.StepLR(opt, 1)\ns.load_state_dict({'optimizer': nn.Linear(1, 1)})\ns.step()",
    "s = S.StepLR(opt, 1)\ns.load_state_dict({'brand_new': 1})\nprint(s.brand_new)",
    "s = S.StepLR(opt, 1)\nS.StepLR.load_state_dict(s, {'__array_interface__': fake})\nprint(torch.tensor(s))",
    "s = S.StepLR(opt, 1)\nsuper(S.StepLR, s).load_state_dict({'__array_interface__': fake})\nprint(torch.tensor(s))",
    "s = S.StepLR(opt, 1)\nsd = s.state_dict()\nsd['base_lrs'] = [{'__array_interface__': fake}]\ns.load_state_dict(sd)",
    "class R(nn.Module):\n    def forward(self, memo):\n        return 1\n"
    "sd = opt.state_dict()\nsd['param_groups'][0]['evil'] = nn.ModuleDict({'__deepcopy__': R()})\nopt.load_state_dict(sd)",
    "sd = opt.state_dict()\nsd['param_groups'][0]['__array_interface__'] = fake\nopt.load_state_dict(sd)",
    "sd = opt.state_dict()\nsd['state'] = {0: {'momentum_buffer': print}}\nopt.load_state_dict(sd)",
    "torch.optim.SGD.load_state_dict(opt, opt.state_dict())",
]):
    case("state_dicts", f"state_dict_{i:02d}", _SD + code)
case("state_dicts", "state_dict_round_trip",
     _SD + "s = S.LambdaLR(opt, lambda e: 0.5 ** e)\n(w * 2).sum().backward()\nopt.step()\ns.step()\n"
     "t = S.LambdaLR(opt, lambda e: 1.0)\nt.load_state_dict(s.state_dict())\nopt.load_state_dict(opt.state_dict())\n"
     "print(t.get_last_lr(), t.last_epoch)", OK)

# --- classes and descriptors: metaclass attributes, unbound builtin methods, re-running __init__ -------------------
for i, code in enumerate([
    "print(torch.Tensor.mro())",
    "O = torch.autograd.Function.mro()[-1]\nprint(O())",
    "class F(torch.autograd.Function):\n    pass\nprint(F.mro())",
    "BE = torch.nn.Linear.mro()[-1]\ntry:\n    while True:\n        pass\nexcept BE:\n    print('swallowed')",
    "f = super(torch.nn.Linear, torch.nn.Linear).__init__\nf(torch.random.default_generator)",
    "evil = torch.dtype('evil', 'O', 'Float', 'float')\nt = torch.tensor([print], dtype=evil)\nprint(t.tolist())",
    "print(torch.autograd.graph.Node())",
    "print(torch.autograd.AccumulateGrad(torch.ones(1)))",
    "sd = torch.nn.Linear(1, 1).state_dict()\ndict.update(sd, {'__array__': torch.nn.Linear(1, 1)})\n"
    "print(torch.nn.Sequential(sd))",
    "opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)\ndict.setdefault(opt.state, 'k', print)",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn = torch.nn.Linear(1, 1)\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\nclass N(torch.nn.Module):\n    def apply_backward(self, *a):\n"
    "        return a\nmd = torch.nn.ModuleDict({'_next': N()})\ny.grad_fn = md\ny.sum().backward()",
    "m = torch.nn.Linear(1, 1)\nsuper(torch.nn.Linear, m).register_buffer('__array_interface__', torch.ones(1))",
    "m = torch.nn.Linear(1, 1)\nsuper(torch.nn.Linear, m).add_module('_modules', torch.nn.Linear(1, 1))",
    "md = torch.nn.ModuleDict()\nmd['__deepcopy__'] = torch.nn.Linear(1, 1)",
    "md = torch.nn.ModuleDict()\nmd['_data'] = torch.nn.Linear(1, 1)\nprint(torch.tensor(md))",
    "t = type(torch.float32)\nprint(t('x', 'O', 'x', 'x'))",
]):
    case("classes", f"classes_{i:02d}", "import torch\n" + code)
case("classes", "classes_tags_still_work",
     "import torch\nfrom torch.autograd.graph import Node\ny = torch.ones(1, requires_grad=True) * 2\n"
     "print(torch.dtype, isinstance(torch.float32, torch.dtype), type(torch.float64) == torch.dtype,\n"
     "      isinstance(y.grad_fn, Node), issubclass(type(y.grad_fn), torch.autograd.graph.Node))", OK)

# --- engine objects: helpers beyond PyTorch's API, object arrays, internals user code can reach -------------------
for i, code in enumerate([
    "g = torch.Generator()\no = g.uniform(3, 0.0, 1.0, 'O')\nprint(torch.ones(3) + o)",
    "g = torch.Generator()\nprint(torch.Generator.uniform(g, 3, 0.0, 1.0, 'O'))",
    "print(torch.random.default_generator.random32(10 ** 9))",
    "g = torch.Generator()\nprint(g.normal(4, 0.0, 1.0, 'U8'))",
    "def pack(t):\n    return t\ndef unpack(p):\n    return [1, 2]\nx = torch.ones(2, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n    y = x * x\ny.sum().backward()",
    "x = torch.ones(2, requires_grad=True)\nh = x.register_hook(lambda g: g)\nprint(h.registry)",
    "y = torch.ones(1, requires_grad=True) * 2\nprint(y.grad_fn.apply_backward, y.grad_fn.release)",
    "y = torch.ones(1, requires_grad=True) * 2\nprint(y.grad_fn.unpack)",
]):
    case("engine_objects", f"engine_objects_{i:02d}", "import torch\n" + code)
for i, code in enumerate([  # object arrays reach engine ops through NumPy's own operators: nothing leaks
    "a = torch.ones(3).numpy()\nt = torch.ones(3) + (a + [print, len, print])\nprint(t.exp())",
    "t = torch.zeros(2).masked_fill(torch.tensor([True, False]), print)\nprint(t.tolist())",
    "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        ctx.rule = 'fake'\n"
    "        ctx.metadata = print\n        return a * 2\n    @staticmethod\n    def backward(ctx, g):\n        return g\n"
    "x = torch.ones(2, requires_grad=True)\nF.apply(x).sum().backward()\nprint(x.grad)",
]):
    case("engine_objects", f"object_arrays_{i:02d}", "import torch\n" + code, ANY)
for i, code in enumerate([  # ModuleDict keys become names Module.__getattr__ serves to NumPy, copy and the tracer
    "class M(torch.nn.Module):\n    def forward(self, *a):\n        return torch.ones(2).numpy()\n"
    "md = torch.nn.ModuleDict({'__array__': M()})\nprint(torch.ones(2).numpy() + md)",
    "class M(torch.nn.Module):\n    def forward(self, memo):\n        return memo\n"
    "md = torch.nn.ModuleDict({'__array_interface__': M()})\nprint(torch.tensor(md))",
    "x = torch.ones(1, requires_grad=True)\nclass H(torch.nn.ModuleDict):\n    def forward(self, g):\n        return g\n"
    "x.register_hook(H({'__name__': torch.nn.Linear(1, 1)}))\n(x * 2).backward()",
    "class R(torch.nn.Module):\n    def forward(self, memo):\n        return 1\n"
    "opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)\nsd = opt.state_dict()\n"
    "sd['param_groups'][0]['x'] = torch.nn.ModuleDict({'__deepcopy__': R()})\nopt.load_state_dict(sd)",
    "class H(torch.nn.ModuleDict):\n    def items(self):\n        return [('_parameters', torch.nn.Linear(1, 1))]\n"
    "h = H({'a': torch.nn.ReLU()})\nmd = torch.nn.ModuleDict(h)\nprint(md)",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\nclass N(torch.nn.ModuleDict):\n    def apply_backward(self, *a):\n"
    "        return a\nn = N({'_next': torch.nn.ReLU()})\nprint(n)",
    "class H(torch.nn.ModuleDict):\n    def __init__(self):\n"
    "        super(torch.nn.ModuleDict, self).__init__({'__array__': torch.nn.ReLU()})\nprint(H())",
    "class H(torch.nn.ModuleDict):\n    def __init__(self):\n        super().__init__({'_modules': torch.nn.ReLU()})\nprint(H())",
]):
    case("modules", f"module_dict_keys_{i:02d}", "import torch\n" + code)
case("modules", "module_dict_still_works",
     "import torch\nmd = torch.nn.ModuleDict({'fc': torch.nn.Linear(2, 1)})\nmd['act'] = torch.nn.ReLU()\n"
     "class Net(torch.nn.ModuleDict):\n    def forward(self, x):\n        return self['act'](self['fc'](x))\n"
     "net = Net({'fc': torch.nn.Linear(2, 1), 'act': torch.nn.Tanh()})\n"
     "print(list(md.keys()), isinstance(net, torch.nn.ModuleDict), net(torch.ones(1, 2)).shape)", OK)

# --- format strings built at run time ------------------------------------------------------------------------
for i, code in enumerate([
    "f = lambda: 0\nprint(('{0.' + '__globals__}').format(f))",
    "print('{0.__class__}{'.format(1))",
    "print(list(map(str.format, ['{0.' + '__class__}'], [1])))",
    "print(('{0:{1.' + 'real}}').format(1, 2))",
    "s = b'{0.__class__}'.decode()\nprint(s.format(1))",
    "fm = '{0.__class__}'.format\nprint(fm(1))",
    "print(f'{1:{\"{0.__class__}\"}}')",
    "p = '{}'.format\nprint(p.func, p.args)",
]):
    case("format", f"format_runtime_{i:02d}", code)

# --- resources: what has to stop the run, and leave the sandbox serving ------------------------------------------
for i, code in enumerate([
    "raise ValueError('x' * 10 ** 8)",
    "print('{:>{w}}'.format(1, w=10 ** 9))",
    "print(f'{1:>{10 ** 9}}')",
    "x = sum([[1]] * 200000, [])",
    "import torch\na = torch.ones(2000, 2000)\nwhile True:\n    a = a @ a",
    "x = " + "-" * 60000 + "1",
    "import torch\ng = torch.Generator()\ng.manual_seed(1)\nwhile True:\n    torch.rand(4000000, generator=g)",
    "import torch\nclass M(torch.nn.Module):\n    def extra_repr(self):\n        return repr(self)\nprint(M())",
    "try:\n    print('z' * 2000000)\nexcept Exception:\n    pass\nwhile True:\n    print('again')",
    "import torch\nx = torch.ones(1)\nfor i in range(200000):\n    x = x + 1\nprint(x)",
]):
    case("resources", f"resources_{i:02d}", code, STOPPED if i != 9 else ANY)

# --- more of what was already refused, kept so it stays refused --------------------------------------------------
for i, code in enumerate([
    "g = (i for i in range(3))\nnext(g)\nprint(hasattr(g, 'gi_' + 'frame'), hasattr(g, 'send'), hasattr(g, 'throw'))\n"
    "raise RuntimeError('done')",
    "import torch\ng = torch.nn.Linear(1, 1).parameters()\nprint(g.gi_frame.f_back)",
    "try:\n    1 / 0\nexcept Exception as e:\n    print(e.__context__, e.__cause__)",
    "try:\n    1 / 0\nexcept Exception as e:\n    t = type(e)\n    print(t('x').args)",
    "try:\n    1 / 0\nexcept Exception as e:\n    print([a for a in e.args], e.with_traceback)",
    "import torch\ntry:\n    torch.ones(2).view(3)\nexcept RuntimeError as e:\n    print(e.add_note)",
]):
    case("frames", f"frames_more_{i:02d}", code)
for i, code in enumerate([
    "class F(torch.autograd.Function):\n    def __set_name__(self, owner, name):\n        pass",
    "class F(torch.autograd.Function):\n    def __class_getitem__(cls, item):\n        return item",
    "class M(torch.nn.Module):\n    def __del__(self):\n        print('late')",
    "class M(torch.nn.Module):\n    def __array__(self, *a):\n        return None",
    "class M(torch.optim.SGD):\n    pass",
    "class L(torch.optim.lr_scheduler.StepLR):\n    pass",
    "class G(torch.Generator):\n    pass",
    "class D(torch.dtype):\n    pass",
    "class M(torch.nn.Module):\n    pass\nM.__init__ = print",
    "class M(torch.nn.Module):\n    pass\nM.forward = print\nsetattr(M, '__array__', print)",
    "t = type(1)\nprint(t.mro())",
    "print(torch.dtype.mro())",
    "print(torch.nn.Module.register_buffer.__globals__)",
    "f = torch.tensor\nprint(f.__globals__['np'])",
    "print(super(torch.nn.Linear, torch.nn.Linear(1, 1)).__self__)",
]):
    case("classes", f"classes_more_{i:02d}", "import torch\n" + code)
case("classes", "classes_engine_property_in_user_class",
     "import torch\nclass M(torch.nn.Module):\n    data = torch.Tensor.data\n    grad = torch.Tensor.grad\n"
     "m = M()\nprint(m.grad)", ANY)
case("classes", "classes_module_and_function",
     "import torch\nclass M(torch.nn.Module, torch.autograd.Function):\n    pass\nprint(M())", ANY)
for i, code in enumerate([
    "from torch.optim.lr_scheduler import partial",
    "from torch.optim.lr_scheduler import ref",
    "from torch.optim.lr_scheduler import types",
    "from torch.optim import copy",
    "from torch.nn import OrderedDict",
    "from torch.random import math",
    "import torch.optim.lr_scheduler as S\nprint(S.Counter)",
    "import torch\nprint(torch.optim.lr_scheduler.wraps)",
    "import weakref",
    "import gc\ngc.get_objects()",
    "import _thread",
    "import posix",
    "import os.path",
    "import sys as s",
    "from builtins import open",
]):
    case("imports", f"imports_more_{i:02d}", code)
for i, code in enumerate([
    "import torch\nprint(torch.ones(1).\uff4eumpy())",
    "x = 'a'\nprint(x.\uff55pper())",
    "import torch\nt = torch.ones(1)\nprint(t.grad_\uff46n)",
]):
    case("unicode", f"unicode_more_{i:02d}", code)
for i, code in enumerate([
    "print('x', end=print)",
    "print(1, 2, sep=open)",
    "p = print\np('a', file=p)",
    "import torch\nx = torch.ones(1)\nprint(x, file=x)",
]):
    case("builtins", f"builtins_more_{i:02d}", code)

# --- oversized error messages: shortened in the trace, never a crash of the run ------------------------
case("resources", "huge_exception_message", "raise ValueError('x' * 10**8)", frozenset({"error", "limit"}))
case("engine_objects", "masked_fill_with_a_function",
     "import torch\nt = torch.zeros(2).masked_fill(torch.tensor([True, False]), print)\nprint(t)")

# --- io: only in-memory files (for torch.save / torch.load); torch.load never unpickles -----------------------------
def _gradstep_buffer(root: str, storage: str = '[["float32",4]]', payload: int = 4) -> str:
    """Snippet code building a buffer in torch.save's format around a crafted header, then loading it."""
    return ("import torch, io\n"
            f"h = '{{\"storages\":{storage},\"root\":{root}}}'.encode()\n"
            "buf = b'\\x00gradstep torch.save v1\\n' + bytes([len(h) % 256, len(h) // 256, 0, 0, 0, 0, 0, 0]) + h"
            f" + bytes({payload})\n"
            "print(torch.load(io.BytesIO(buf)).tolist())")


_TENSOR = ('{{"t":"tensor","id":0,"storage":0,"dtype":"float32","shape":{shape},"stride":{stride},"offset":{offset},'
           '"requires_grad":false,"param":false}}')
for i, code in enumerate([
    "import io\nio.FileIO('@CANARY@')",
    "from io import open\nprint(open('@CANARY@').read())",
    "import io\nf = io.TextIOWrapper(io.BytesIO())",
    "import io\nb = io.BytesIO(b'x')\nm = b.getbuffer()\nprint(m.obj)",
    "import io\nprint(io.BytesIO.__init__)",
    "import io\nclass F(io.BytesIO):\n    def read(self):\n        return open('@CANARY@').read()",
    "import io\nprint(io.BytesIO.read(io.BytesIO(b'x')))",
    "import io\nb = io.BytesIO()\nprint(b.read.__self__)",
    "import io\nio.BytesIO = dict",
    "import io\nprint(io.StringIO().buffer)",
    "import io\nb = io.BytesIO()\nprint(b.fileno())",
    "import torch, io\ntorch.load(io.BytesIO(b\"cos\\nsystem\\n(S'touch @MARKER@'\\ntR.\"))",
    "import torch, io\ntorch.load(io.BytesIO(b\"cos\\nsystem\\n(S'touch @MARKER@'\\ntR.\"), weights_only=False)",
    "import torch, io\ntorch.load(io.BytesIO(b\"cbuiltins\\nopen\\n(S'@CANARY@'\\ntR.\"), weights_only=False)",
    _gradstep_buffer(_TENSOR.format(shape="[1000000]", stride="[1]", offset=0)),
    _gradstep_buffer(_TENSOR.format(shape="[2]", stride="[-1]", offset=1)),
    _gradstep_buffer(_TENSOR.format(shape="[1]", stride="[1]", offset=100000)),
    _gradstep_buffer(_TENSOR.format(shape="[4]", stride="[1]", offset=0), storage='[["object",4]]'),
    _gradstep_buffer(_TENSOR.format(shape="[1]", stride="[1]", offset=0), storage='[["float32",400]]'),
    _gradstep_buffer('{"t":"global","v":"os.system"}'),
    _gradstep_buffer('{"t":"global","v":"builtins.eval"}').replace("io.BytesIO(buf))", "io.BytesIO(buf), weights_only=False)"),
    _gradstep_buffer('{"t":"ref","id":7}'),
]):
    case("io", f"io_{i:02d}", code)
case("io", "io_round_trip", "import torch, io\nlin = torch.nn.Linear(2, 1)\nb = io.BytesIO()\n"
     "torch.save({'model': lin.state_dict(), 'step': 3}, b)\nb.seek(0)\nckpt = torch.load(b)\n"
     "lin.load_state_dict(ckpt['model'])\nprint(ckpt['step'], io.StringIO('a').read())", OK)
case("io", "io_crafted_buffer_in_bounds", _gradstep_buffer(_TENSOR.format(shape="[2]", stride="[0]", offset=0)), OK)
case("io", "io_crafted_list_holding_itself",
     _gradstep_buffer('{"t":"list","id":0,"v":[{"t":"ref","id":0}]}').replace(".tolist()", ""), OK)


# --- protocol names served by Module.__getattr__ ----------------------------------------------------
# Sequential(OrderedDict) and ParameterDict register their keys without the policy's name check; a child
# module registered as `__deepcopy__` was called by copy.deepcopy (nn.TransformerEncoder clones its layer)
# with the memo, which holds the originals: the layer's own __dict__, where an `__array_interface__` dict
# let NumPy read any address.
_DEEPCOPY_MEMO = """
import torch
from collections import OrderedDict
box = []
class Grab(torch.nn.Module):
    def forward(self, memo):
        box.append(memo)
        return torch.nn.Identity()
class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Sequential(OrderedDict([('__deepcopy__', Grab())]))
    def forward(self, x):
        return x
layer = Layer()
enc = torch.nn.TransformerEncoder(layer, 1)
memo = box[0]
"""
case("modules", "deepcopy_memo_array_interface", _DEEPCOPY_MEMO + """
d = [v for v in memo[[k for k in memo if type(memo[k]) == type([])][0]] if type(v) == type({}) and 'training' in v][0]
secret = b'HELLO-SECRET-BYTES'
d['__array_interface__'] = {'shape': (48,), 'typestr': '|u1', 'data': (id(secret), True), 'version': 3}
print(bytes(torch.tensor(layer).tolist()))
""")
case("modules", "deepcopy_memo_reached", _DEEPCOPY_MEMO + "print(type(memo))")
for i, code in enumerate([
    "import torch\npd = torch.nn.ParameterDict({'__array_interface__': torch.nn.Parameter(torch.ones(1))})\n"
    "print(pd.__array_interface__)",
    "import torch\nfrom collections import OrderedDict\n"
    "s = torch.nn.Sequential(OrderedDict([('__array__', torch.nn.Identity())]))\nprint(torch.tensor(s))",
    "import torch\npd = torch.nn.ParameterDict()\npd.update([('__deepcopy__', torch.ones(1))])\n"
    "print(getattr(pd, '__deepcopy__'))",
    "import torch\nfrom collections import OrderedDict\n"
    "s = torch.nn.Sequential(OrderedDict([('__copy__', torch.nn.Identity())]))\nprint(s.__copy__)",
]):
    case("modules", f"dunder_registered_{i:02d}", code)
case("modules", "sequential_named_and_transformer_clones", """
import torch
from collections import OrderedDict
torch.manual_seed(0)
s = torch.nn.Sequential(OrderedDict([('fc', torch.nn.Linear(2, 2)), ('act', torch.nn.ReLU())]))
print(s.fc.out_features, type(s.act).__name__)
pd = torch.nn.ParameterDict({'scale': torch.nn.Parameter(torch.ones(1))})
print(pd.scale.shape, pd['scale'].requires_grad)
layer = torch.nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8)
enc = torch.nn.TransformerEncoder(layer, 2)
print(len(enc.layers), enc(torch.randn(3, 1, 4)).shape)
""", OK)

# --- keyword names from a ** mapping (the compile-time check sees only written keywords) ---------------------
case("modules", "kwargs_unpack_array_interface", """
import torch
secret = b'HELLO-SECRET-BYTES'
loss = torch.nn.MSELoss(**{'__array_interface__': {'shape': (48,), 'typestr': '|u1', 'data': (id(secret), True), 'version': 3}})
print(bytes(torch.tensor(loss).tolist()))
""")
for i, code in enumerate([
    "import torch\nloss = torch.nn.L1Loss(**{'_parameters': {}})\nprint(loss)",
    "import torch\nkw = dict(__dict__={})\nprint(torch.nn.MSELoss(**kw))",
    "import torch\ndef make(**kw):\n    return torch.nn.HuberLoss(**kw)\nprint(make(**{'__class__': int}))",
    "import torch\nprint(torch.nn.SmoothL1Loss(**{'__array_struct__': 1}))",
]):
    case("modules", f"kwargs_unpack_{i:02d}", code)
case("modules", "kwargs_unpack_control", """
import torch
def make(**kw):
    return torch.nn.Linear(**kw)
cfg = {'in_features': 3, 'out_features': 2, 'bias': False}
print(make(**cfg), torch.nn.CrossEntropyLoss(**{'reduction': 'sum', 'label_smoothing': 0.1}).reduction)
print(dict(**{'a': 1}, b=2))
""", OK)

# --- ParameterDict keys: a value other than a tensor became an instance attribute of that name -------------
_PD_INTERFACE = "{'shape': (48,), 'typestr': '|u1', 'data': (id(secret), True), 'version': 3}"
for i, code in enumerate([
    f"import torch\nsecret = b'HELLO-SECRET-BYTES'\npd = torch.nn.ParameterDict({{'__array_interface__': {_PD_INTERFACE}}})\n"
    "x = torch.zeros(48, dtype=torch.uint8)\nx[:] = pd\nprint(bytes(x.tolist()))",
    f"import torch\nsecret = b'HELLO-SECRET-BYTES'\npd = torch.nn.ParameterDict()\n"
    f"pd.update([('__array_interface__', {_PD_INTERFACE})])\nx = torch.zeros(48, dtype=torch.uint8)\nx[:] = pd\n"
    "print(bytes(x.tolist()))",
    "import torch\npd = torch.nn.ParameterDict({'_y': 1})\nprint(pd)",
    "import torch\nfrom collections import OrderedDict\ns = torch.nn.Sequential(OrderedDict([('_x', torch.nn.ReLU())]))",
    "import torch\nclass M(torch.nn.ModuleDict):\n    def __init__(self):\n        super().__init__({'__array__': torch.nn.ReLU()})\nM()",
    "import torch\nclass S(torch.nn.Sequential):\n    pass\nfrom collections import OrderedDict\nS(OrderedDict([('__deepcopy__', torch.nn.ReLU())]))",
    # an unpack hook's result is used as the saved tensor's data: a module with a `_data` child was read as one
    "import torch\nfrom collections import OrderedDict\nx = torch.ones(3, requires_grad=True)\n"
    "fake = torch.nn.Sequential(OrderedDict([('_data', torch.nn.Identity())]))\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda p: fake):\n    y = (x * x).sum()\ny.backward()",
    "import torch\nx = torch.ones(3, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda p: torch.nn.Linear(1, 1)):\n"
    "    y = (x * x).sum()\ny.backward()",
]):
    case("modules", f"container_keys_{i:02d}", code)
case("modules", "container_keys_control", """
import torch
from collections import OrderedDict
s = torch.nn.Sequential(OrderedDict([('fc', torch.nn.Linear(2, 2)), ('act', torch.nn.ReLU())]))
print(type(s[:1]).__name__, isinstance(s[:1], torch.nn.Sequential), s[:1])
s.append(torch.nn.Tanh())
md = torch.nn.ModuleDict({'a': torch.nn.ReLU()})
md['b'] = torch.nn.Tanh()
pd = torch.nn.ParameterDict({'w': torch.nn.Parameter(torch.ones(1)), 'note': 3})
pd.update({'v': torch.ones(2)})
print(len(s), md, sorted(pd.keys()), pd['note'])
class Net(torch.nn.Sequential):
    pass
print(Net(torch.nn.ReLU())[:1])
x = torch.ones(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda p: p):
    y = (x * x).sum()
y.backward()
print(x.grad)
""", OK)

# --- red team: widened policy (__class__ tags, tensor operator methods, plain classes, object, flags) -------
for i, code in enumerate([
    # state_dict(destination=...) writes prefix+name keys into any container and sets its _metadata
    "import torch\nm = torch.nn.Module()\nm.register_buffer('interface__', torch.ones(1))\n"
    "pd = torch.nn.ParameterDict()\nm.state_dict(destination=pd, prefix='__array_')\nprint(pd)",
    "import torch\nm = torch.nn.Linear(1, 1)\nd = torch.nn.ModuleDict()\nm.state_dict(destination=d, prefix='__')",
    "import torch\nclass Box:\n    pass\nb = Box()\ntorch.nn.Linear(1, 1).state_dict(destination=b)\nprint(b._metadata)",
    # the name tag from __class__ is not the class
    "import torch\nT = torch.ones(1).__class__\nprint(T._cls)",
    "import torch\nT = torch.ones(1).__class__\nprint(T([1.0]))",
    "import torch\nT = torch.ones(1).__class__\nclass X(T):\n    pass",
    "import torch\nT = (1).__class__.__class__\nprint(T('X', (), {}))",
    "import torch\nprint(torch.ones(1).__class__.__class__.__class__.mro())",
    "import torch\nprint(getattr(torch.ones(1).__class__, 'mro'))",
    "import torch\nprint(issubclass(torch.ones(1).__class__, object), torch.ones(1).__class__.__subclasses__())",
    "print((1).__class__.__base__)",
    "import torch\nprint(super(torch.ones(1).__class__, torch.ones(1)))",
    # tensor operator methods: reading them is fine, their internals are not
    "import torch\nf = torch.ones(1).__iadd__\nprint(f.__func__)",
    "import torch\nf = torch.ones(1).__add__\nprint(getattr(f, '__self__'))",
    "import torch\nprint(getattr(torch.ones(1).__getitem__, '__wrapped__'))",
    "import torch\nprint(torch.ones(1).__reduce__)",
    "import torch\nprint(torch.ones(1).__deepcopy__({}))",
    "import torch\nprint(torch.ones(1).__array_wrap__)",
    "import torch\nprint(torch.ones(1).__setstate__)",
    "import torch\nprint(torch.nn.Linear(1, 1).__getitem__)",
    "import torch\nprint(torch.nn.Parameter(torch.ones(1)).__reduce_ex__)",
    "import torch\nprint(torch.ones(1).grad_fn.__getitem__)",
    "import torch\nx = torch.ones(2, requires_grad=True)\nprint((x * 2).grad_fn.__call__)",
    "import torch\nx = torch.ones(2, requires_grad=True)\nprint(getattr((x * 2).grad_fn, '_raw_saved_other').tensor)",
    "import torch\nx = torch.ones(2, requires_grad=True)\nprint(getattr((x * x).grad_fn, '_raw_saved_self').__class__.__init__)",
    "import torch\nx = torch.ones(2, requires_grad=True)\nprint((x * x).grad_fn._saved_self._data)",
    "import torch\nx = torch.ones(2, requires_grad=True)\nprint((x * x).grad_fn._sv)",
    "import torch\nx = torch.ones(2, requires_grad=True)\nprint(getattr((x * x).grad_fn, '_saved'))",
    # plain classes and object
    "class X:\n    pass\nX.__init__ = print",
    "class X:\n    pass\nsetattr(X, '__getattr__', print)",
    "class X:\n    def __len__(self):\n        return 1\nprint(X.__len__.__globals__)",
    "class X:\n    def __iter__(self):\n        return iter([1])\nprint(getattr(X(), '__iter__'))",
    "class X(object):\n    def __getitem__(self, k):\n        return k\nprint(X()[0], X.__getitem__)",
    "o = object()\nprint(o.__reduce_ex__(4))",
    "print(object.__subclasshook__)",
    "print(getattr(object(), '__class__').__name__, getattr(object, '__init_subclass__'))",
    "class X:\n    pass\nX.__bases__ = (dict,)",
    "class X:\n    pass\nclass Y(X, object, X):\n    pass",
    "class X:\n    def __init__(self):\n        self.__dict__ = {}",
    "class X:\n    pass\nx = X()\nsetattr(x, '__class__', int)",
    "class X:\n    pass\nprint(type(X()).__mro__)",
    "class X:\n    __doc__ = 1",
    "class X:\n    __module__ = 'torch.nn'",
    "class X:\n    __qualname__ = 'Tensor'",
    "class X:\n    def __class_getitem__(cls, k):\n        return k",
    "class X:\n    def __getitem__(self, k):\n        return k\nprint(X.__getitem__.__code__)",
    "class X:\n    pass\nprint(X.__dict__)",
    "import torch\nclass X(torch.nn.Module, object):\n    pass\nprint(X.__mro__)",
    "import torch\nclass X(torch.utils.data.Dataset):\n    def __getitem__(self, i):\n        return i\nprint(X.__getitem__.__func__)",
    # facade flags: only booleans on cudnn, nowhere else, and nothing beyond the listed names
    "import torch\ntorch.backends.cudnn.version = lambda: 1",
    "import torch\ntorch.backends.cudnn.deterministic = torch.tensor(True)",
    "import torch\nfrom torch.backends import cudnn\ncudnn.enabled = 0",
    "import torch\ntorch.backends.mps.is_available = True",
    "import torch\ntorch.autograd.forward_ad.make_dual = True",
    "import torch\ntorch.backends.cudnn.benchmark = True\ndel torch.backends.cudnn.benchmark",
    "import torch\nsetattr(torch.backends.cudnn, '__class__', int)",
    "import torch\nsetattr(torch.backends.cudnn, '_Facade__attrs', {})",
    "import torch\nprint(getattr(torch.backends.cudnn, '_Facade__attrs'))",
    # forward_ad internals
    "import torch.autograd.forward_ad as f\nprint(f.UnpackedDualTensor._make([1, 2]))",
    "import torch.autograd.forward_ad as f\nprint(f.UnpackedDualTensor.__new__)",
    "import torch.autograd.forward_ad as f\nprint(f.UnpackedDualTensor.primal.__get__)",
    "import torch.autograd.forward_ad as f\nclass X(f.UnpackedDualTensor):\n    pass",
    "import torch\nimport torch.autograd.forward_ad as f\nfor i in range(5):\n    f.exit_dual_level()\nprint(f.make_dual(torch.ones(1), torch.ones(1)))",
    # finfo / iinfo
    "import torch\nprint(torch.finfo(torch.float32).__dict__)",
    "import torch\nprint(getattr(torch.iinfo(torch.int8), '_np'))",
    "import torch\nclass F(torch.finfo):\n    pass",
    "import torch\ntorch.finfo.eps = 1",
]):
    case("redteam", f"widened_{i:02d}", code)
for i, code in enumerate([
    "import torch\nx = torch.ones(3)\nx.__setitem__(0, 5.0)\nx.__iadd__(1)\nprint(x, x.__len__(), x.__getitem__(0), x.__class__.__name__)",
    "import torch\nimport torch.autograd.forward_ad as f\nwith f.dual_level():\n    d = f.make_dual(torch.ones(2), torch.ones(2))\n"
    "    u = f.unpack_dual(d * 3)\n    print(u.primal, u.tangent, type(u).__name__)",
    "import torch\nprint(torch.finfo(torch.float16).eps, torch.iinfo(torch.int8).max, torch.finfo().bits)",
    "class Meter(object):\n    def __init__(self):\n        self.n = 0\n    def __len__(self):\n        return self.n\nm = Meter()\nm.n = 3\n"
    "print(len(m), isinstance(m, object), m.__class__.__name__, type(m) == Meter)",
]):
    case("redteam", f"widened_control_{i:02d}", code, OK)

# --- red team: element, output and trace-size limits ------------------------------------------------------------
for i, code in enumerate([
    "for i in range(100000):\n    try:\n        raise ValueError('e' * 100000)\n    except ValueError as e:\n        pass\nraise ValueError('e' * 10**7)",
    "print('x', end='y' * 2_000_000)",
    "print('x', sep='y' * 1_000_000, *range(3))",
    "import torch\ntorch.set_printoptions(threshold=10**9)\nprint(torch.arange(3_000_000))",
    "import torch\nfor i in range(30000):\n    x = torch.ones(1)",
    "import torch\nx = torch.ones(1, requires_grad=True)\nfor i in range(20000):\n    x = x * 1.0001",
    "import torch\nxs = [torch.ones(1024) for i in range(19000)]",
    "l = []\nfor i in range(100000):\n    l = [l]\nprint(l)",
    "import torch\nx = torch.ones(1024, requires_grad=True)\nfor i in range(3000):\n    x = x.sin()\nx.sum().backward()",
    "import torch\nx = torch.ones(1)\nx.resize_(10**9)",
    "import torch\nprint(torch.ones(1).expand(10**6, 10**6).contiguous())",
    "import torch\nprint(torch.ones(1).as_strided((10**5, 10**5), (0, 0)).clone())",
    "import torch\nprint(torch.zeros(2**40, dtype=torch.bool))",
    "import torch\nprint(torch.nn.Linear(10**5, 10**5))",
    "import torch\nprint(torch.Tensor(10**10))",
    "import torch\nprint(torch.randperm(10**10))",
    "import numpy as np\nprint(np.zeros((10**5, 10**5)))",
    "print(len('x' * 10**10))",
    "print(10**10**8)",
    "x = 2\nfor i in range(100):\n    x = x ** x",
    "import math\nprint(math.factorial(10**8))",
    "print(sorted(range(10**9))[:3])",
    "print('{:>{w}}'.format(1, w=10**10))",
    "print(f'{1:>{10**9}}')",
    "print('%*d' % (10**9, 1))",
    "import torch\nprint(torch.tensor([[1.0] * 10**4] * 10**4))",
    "import torch\nnames = {}\nfor i in range(25000):\n    t = torch.ones(1)\n    names[i] = t",
]):
    case("redteam", f"limits_{i:02d}", code, STOPPED)
# warnings are not part of the trace: a flood of long ones is neither output nor trace size
case("redteam", "limits_warnings_flood", "import warnings\nwarnings.simplefilter('always')\nfor i in range(400):\n"
     "    warnings.warn('w' * 60000 + str(i))\nprint('done')", OK)

# --- red team: what reaches the trace JSON the server parses ------------------------------------------------
for i, code in enumerate([
    "import torch\nfrom torch.autograd.gradcheck import GradcheckError\ne = GradcheckError('x')\ne.line = 10**100\ne.col = [0] * 10**6\nraise e",
    "e = ValueError('x')\ne.line = 3\nraise e",
    "import torch\nclass E(torch.nn.Module):\n    pass\nm = E()\nm.line = 10**100\nraise RuntimeError(m)",
    "print('\\ud800\\udfff', '\"}]},{\"status\":\"ok\"')\nraise ValueError('\\udc80' * 100)",
    "import torch\nx = torch.tensor([float('nan'), float('inf'), -float('inf'), 1e308 * 10])\nprint(x)\nraise ValueError(str(x))",
    "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * float('nan')).sum()\ny.backward()\nraise ValueError(2 ** 10000)",
    "raise ValueError(*range(10**6))",
    "import torch\nraise RuntimeError(torch.nn)",
]):
    case("redteam", f"trace_json_{i:02d}", code, ANY if i in (3, 4, 5, 6, 7) else REFUSED)

# --- red team: parametrizations, hooks handing back gradients ---------------------------------------------------
_PZ = "import torch\nimport torch.nn as nn\nfrom torch.nn.utils import parametrize as P\n"
for i, code in enumerate([
    # type_before_parametrizations(x) is type(x): for a class that is the metaclass `type`, which makes classes
    # past build_class (an __array_interface__ NumPy reads memory through), or a class snippets may not call
    "T = P.type_before_parametrizations(nn.Linear)\n"
    "X = T('X', (), {'__array_interface__': {'shape': (64,), 'typestr': '|u1', 'data': (id(print), True), 'version': 3}})\n"
    "print(torch.tensor(X()).tolist())",
    "T = P.type_before_parametrizations(torch.nn.Module)\nprint(T('X', (object,), {'x': 1}))",
    "D = P.type_before_parametrizations(torch.float32)\nprint(torch.zeros(2, dtype=D('x', 'O', 'x', 'x')))",
    "N = P.type_before_parametrizations((torch.ones(1, requires_grad=True) * 2).grad_fn)\nprint(N())",
    "A = P.type_before_parametrizations(torch.ones(2).numpy())\nprint(A((4,), 'O'))",
    "F = P.type_before_parametrizations(lambda: 0)\nprint(F)\nprint(F.__code__)",
    "m = nn.Linear(2, 2)\nP.register_parametrization(m, 'weight', nn.Identity())\n"
    "C = P.type_before_parametrizations(m.parametrizations)\nprint(C({'__array_interface__': nn.ReLU()}))",
    "S = P.type_before_parametrizations(super(nn.Linear, nn.Linear(1, 1)))\nprint(S(nn.Linear, nn.Linear).__init__)",
    # transfer_parametrizations_and_params sets to_module.<tensor_name>: never a '_' name
    "m = nn.Linear(2, 2)\nP.register_parametrization(m, 'weight', nn.Identity())\n"
    "P.transfer_parametrizations_and_params(m, nn.Linear(2, 2), '__array_interface__')",
    "m = nn.Linear(2, 2)\nP.register_parametrization(m, 'weight', nn.Identity())\n"
    "m.parametrizations.update({'__array_interface__': nn.ReLU()})\nimport numpy\nprint(numpy.asarray(m.parametrizations))",
    "m = nn.Linear(2, 2)\nP.register_parametrization(m, 'weight', nn.Identity())\nprint(m.__class__.__dict__)",
    "m = nn.Linear(2, 2)\nP.register_parametrization(m, 'weight', nn.Identity())\nprint(P.cached().gen.gi_frame)",
    "m = nn.Linear(2, 2)\ntorch.nn.utils.weight_norm(m)\nprint(list(m._forward_pre_hooks.values())[0].compute_weight.__func__)",
    "m = nn.Linear(2, 2)\ntorch.nn.utils.spectral_norm(m)\nprint(m.state_dict()._metadata)",
]):
    case("redteam", f"parametrize_{i:02d}", _PZ + code)
for i, code in enumerate([
    "m = nn.Linear(2, 3)\nP.register_parametrization(m, 'weight', nn.Identity())\n"
    "print(type(m).__name__, P.type_before_parametrizations(m) == nn.Linear, isinstance(m, P.type_before_parametrizations(m)))\n"
    "print(P.type_before_parametrizations(m), P.is_parametrized(m, 'weight'))",
    "from torch.nn.utils import parametrizations as PZ\nm = PZ.weight_norm(nn.Linear(3, 2))\nsd = m.state_dict()\n"
    "print(sorted(sd))\nm2 = PZ.weight_norm(nn.Linear(3, 2))\nm2.load_state_dict(sd)\nprint(torch.allclose(m.weight, m2.weight))",
]):
    case("redteam", f"parametrize_control_{i:02d}", _PZ + code, OK)

# gradients a hook hands back must be like the ones they replace: the formulas build NumPy views from the dtype
# and shape they expect (a real gradient read as complex pairs reads past its array)
_CX = "import torch\nx = torch.randn(4096, 2, requires_grad=True)\nc = torch.view_as_complex(x)\ny = c * 2\n"
for i, code in enumerate([
    _CX + "c.grad_fn.register_prehook(lambda go: (torch.ones(4096, dtype=torch.float64),))\n"
          "y.abs().sum().backward()\nprint(x.grad[-1])",
    _CX + "y.grad_fn.register_hook(lambda gi, go: (torch.ones(4096, dtype=torch.float64), None))\n"
          "y.abs().sum().backward()\nprint(x.grad[-1])",
    _CX + "y.grad_fn.register_hook(lambda gi, go: (torch.ones(1, dtype=torch.int8).expand(10**6), None))\n"
          "y.abs().sum().backward()\nprint(x.grad[-1])",
    _CX + "c.grad_fn.register_prehook(lambda go: [torch.ones(10**5)])\ny.abs().sum().backward()\nprint(x.grad.shape)",
    "import torch\nx = torch.randn(3, requires_grad=True)\ny = x * 2\n"
    "y.grad_fn.register_hook(lambda gi, go: (torch.ones(7), None))\ny.sum().backward()\nprint(x.grad.shape)",
    "import torch\nx = torch.randn(3, requires_grad=True)\ny = x.exp() * 2\n"
    "y.grad_fn.register_hook(lambda gi, go: ([1.0, 2.0, 3.0], None))\ny.sum().backward()\nprint(x.grad)",
    "import torch\nc = torch.view_as_complex(torch.randn(4096, 2, requires_grad=True))\nc.backward(torch.ones(4096, dtype=torch.float64))",
]):
    case("redteam", f"hook_results_{i:02d}", code)
# a custom backward's real gradient for a complex input is cast to complex (PyTorch's validate_outputs), never
# read as pairs past its end
case("redteam", "hook_results_custom_backward", "import torch\nclass R(torch.autograd.Function):\n    @staticmethod\n"
     "    def forward(ctx, a):\n        return a.clone()\n    @staticmethod\n    def backward(ctx, g):\n"
     "        return torch.ones(4096)\nx = torch.randn(4096, 2, dtype=torch.float64, requires_grad=True)\n"
     "R.apply(torch.view_as_complex(x)).abs().sum().backward()\nassert x.grad[:, 1].abs().max().item() == 0.0\n"
     "print(x.grad[0])", OK)
case("redteam", "hook_results_control", "import torch\nx = torch.randn(3, requires_grad=True)\ny = x.exp() * 2\n"
     "y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, None))\ny.grad_fn.register_prehook(lambda go: (go[0] * 2,))\n"
     "y.sum().backward()\nprint(x.grad)", OK)

# --- red team: newer features that held (regression guards) ---------------------------------------------------
_BLOB = ("import torch\nimport io\ndef blob(header, payload=b''):\n    h = header.encode()\n    n = len(h)\n"
         "    return b'\\x00gradstep torch.save v1\\n' + bytes([n & 255, (n >> 8) & 255, (n >> 16) & 255, 0, 0, 0, 0, 0]) + h + payload\n"
         "def tensor(shape, stride, offset=0):\n"
         "    return ('{\"storages\":[[\"float32\",8]],\"root\":{\"t\":\"tensor\",\"id\":0,\"storage\":0,\"dtype\":\"float32\",'\n"
         "            '\"shape\":%s,\"stride\":%s,\"offset\":%d,\"requires_grad\":false,\"param\":false}}' % (shape, stride, offset))\n")
for i, code in enumerate([
    # crafted torch.load buffers: tensors outside their storage, foreign objects, deep nesting
    _BLOB + "print(torch.load(io.BytesIO(blob(tensor('[100000]', '[1]'), bytes(8)))))",
    _BLOB + "print(torch.load(io.BytesIO(blob(tensor('[2, 2]', '[1, 100000]'), bytes(8)))))",
    _BLOB + "print(torch.load(io.BytesIO(blob(tensor('[1]', '[1]', 5), bytes(8)))))",
    _BLOB + "print(torch.load(io.BytesIO(blob('{\"storages\":[],\"root\":{\"t\":\"global\",\"v\":\"os.system\"}}')), weights_only=False))",
    _BLOB + "s = '{\"t\":\"list\",\"id\":0,\"v\":[' * 3000 + ']}' * 3000\ntorch.load(io.BytesIO(blob('{\"storages\":[],\"root\":' + s + '}')))",
    "import torch, io\nclass R(object):\n    def read(self, *a):\n        return b'\\x80\\x04cos\\nsystem\\n(S\"cat @CANARY@ > @MARKER@\"\\ntR.'\n"
    "print(torch.load(R(), weights_only=False))",
    "import torch, io\nclass O(object):\n    pass\nb = io.BytesIO()\ntorch.save({'o': O()}, b)\nb.seek(0)\nprint(torch.load(b, weights_only=False))",
    # generators: iteration only
    "def g():\n    yield 1\nprint(getattr(g(), 'gi_frame'))",
    "def g():\n    x = yield 1\n    yield x\nit = g()\nnext(it)\nprint(it.send(print))",
    "def g():\n    yield 1\n    return 2\nit = g()\nnext(it)\ntry:\n    next(it)\nexcept StopIteration as e:\n    print(e.value)",
    "def g():\n    yield 1\nit = g()\nprint(getattr(it, 'gi_' + 'code'))",
    "def g():\n    yield 1\nit = g()\nit.throw(ValueError)",
    # exceptions carry only their args
    "try:\n    nope\nexcept NameError as e:\n    print(e.name)",
    "import torch\ntry:\n    torch.ones(1).nope\nexcept AttributeError as e:\n    print(e.obj)",
    "import torch\ntry:\n    torch.ones(2) @ torch.ones(3)\nexcept RuntimeError as e:\n    print(getattr(e, '__context__'))",
    # sparse, embedding bag, ctc: lengths and indices past their tensors
    "import torch\nprint(torch.sparse_coo_tensor(torch.tensor([[0, 10**9], [0, 1]]), torch.ones(2), (2, 2), check_invariants=False).to_dense())",
    "import torch\nprint(torch.nn.functional.embedding_bag(torch.tensor([1, 2, 3]), torch.randn(10, 3), torch.tensor([0, 10**6])))",
    "import torch\nprint(torch.nn.functional.embedding_bag(torch.tensor([1, 2, 300]), torch.randn(10, 3), torch.tensor([0, 1])))",
    "import torch\nlp = torch.randn(10, 2, 5).log_softmax(2)\n"
    "print(torch.nn.functional.ctc_loss(lp, torch.randint(1, 5, (2, 4)), torch.tensor([10**6, 10]), torch.tensor([4, 4])))",
    "import torch\nlp = torch.randn(10, 2, 5).log_softmax(2)\n"
    "print(torch.nn.functional.ctc_loss(lp, torch.randint(1, 5, (2, 4)), torch.tensor([10, 10]), torch.tensor([10**6, 4])))",
    "import torch\nfrom torch.nn.utils.rnn import PackedSequence, pad_packed_sequence\n"
    "print(pad_packed_sequence(PackedSequence(torch.ones(3, 2), torch.tensor([10**6, 5]), None, None)))",
    "import torch\nfrom torch.nn.utils.rnn import pack_sequence\nprint(pack_sequence([torch.ones(2, 1)])._replace(data=1))",
    # saved tensors hooks handing back other tensors: NumPy indexing stays in bounds
    "import torch\nimport torch.nn.functional as F\nx = torch.randn(1, 1, 64, 64, requires_grad=True)\nw = torch.randn(1, 1, 3, 3, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: torch.zeros(1, 1, 1, 1)):\n    y = F.conv2d(x, w)\n"
    "y.sum().backward()\nprint(w.grad)",
    "import torch\nx = torch.randn(10, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: torch.full_like(t, 10**6) if t.dtype == torch.int64 else t):\n"
    "    y = x.gather(0, torch.tensor([1, 2]))\ny.sum().backward()\nassert x.grad.sum().item() == 2.0\nraise RuntimeError('held')",
    # torch.func and distributions
    "import torch\nfrom torch.func import functional_call\nm = torch.nn.Sequential(torch.nn.Linear(2, 1))\n"
    "print(functional_call(m, {'0.__array_interface__': torch.ones(1)}, (torch.ones(2),)))",
    "import torch\nfrom torch.distributions import constraints\nclass C(object):\n    pass\n"
    "p = constraints.dependent_property(lambda self: 1)\nsetattr(C, '__array_interface__', p)",
    "import torch\nimport torch.distributions as D\nclass MyD(D.Normal):\n    pass",
    "import torch\nimport torch.distributions as D\nprint(D.Normal(0.0, 1.0).__dict__)",
    "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
    "y.grad_fn.metadata['__array_interface__'] = {'data': (0, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n"
    "import numpy\nprint(numpy.asarray(y.grad_fn))",
    "import torch\nfrom torch.autograd.graph import GradientEdge\nclass N(object):\n    pass\n"
    "x = torch.ones(2, requires_grad=True)\nprint(torch.autograd.grad((x * 2).sum(), GradientEdge(N(), 0)))",
]):
    case("redteam", f"newer_features_{i:02d}", code)
for i, code in enumerate([
    "import torch, io\nm = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))\nb = io.BytesIO()\n"
    "torch.save(m.state_dict(), b)\nb.seek(0)\nm.load_state_dict(torch.load(b))\nprint(sorted(m.state_dict()))",
    "def g(n):\n    for i in range(n):\n        yield i * i\nprint(list(g(4)), sum(g(3)), [v for v in g(2)])",
    "import torch\nfrom torch.utils.data import Dataset, DataLoader\nclass D(Dataset):\n    def __len__(self):\n        return 4\n"
    "    def __getitem__(self, i):\n        return {'x': torch.ones(2) * i, 'y': i}\nfor b in DataLoader(D(), batch_size=2):\n    print(b)",
    "import torch\nimport torch.autograd.forward_ad as fwAD\nwith fwAD.dual_level():\n"
    "    d = fwAD.make_dual(torch.complex(torch.ones(2), torch.zeros(2)), torch.complex(torch.ones(2), torch.ones(2)))\n"
    "    print(fwAD.unpack_dual(torch.view_as_real(d * 2)).tangent)",
]):
    case("redteam", f"newer_features_control_{i:02d}", code, OK)

# --- red team 6: memory the engine reaches through NumPy views it builds itself ------------------------------------
# fill_diagonal_(wrap=True) steps through the storage by the sum of the strides: for a transposed tall matrix the
# wrapped diagonal ran past the end of the array (a heap write); PyTorch's as_strided refuses it, and so does the engine
for i, make in enumerate(["torch.zeros(3, 100).t()", "torch.zeros(3, 100000).t()", "torch.zeros(2, 50)[:, 1:].t()",
                          "torch.zeros(9, 2, dtype=torch.float64).t().contiguous().t()"]):
    case("redteam6", f"fill_diagonal_wrap_{i:02d}", f"import torch\nt = {make}\ntry:\n    t.fill_diagonal_(7.0, wrap=True)\n"
         "    escaped = True\nexcept RuntimeError as e:\n    escaped = 'out of bounds for storage' not in str(e)\n"
         "assert not escaped\nprint('refused')", OK)
case("redteam6", "fill_diagonal_wrap_control", "import torch\nt = torch.zeros(100, 10)[:, :3]\nt.fill_diagonal_(7.0, wrap=True)\n"
     "print(t.nonzero().shape, t._base.nonzero().shape)", OK)
# an optimizer's load_state_dict pre-hook ran after the state dict was checked, and could put anything in it
_PRE = "import torch\nw = torch.ones(1, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
for i, code in enumerate([
    "def pre(o, sd):\n    return {'state': {0: {'momentum_buffer': print}}, 'param_groups': sd['param_groups']}\n"
    "opt.register_load_state_dict_pre_hook(pre)\nopt.load_state_dict(opt.state_dict())\nprint(opt.state)",
    "class Grab(torch.nn.Module):\n    pass\ndef pre(o, sd):\n    sd['param_groups'][0]['evil'] = Grab()\n"
    "opt.register_load_state_dict_pre_hook(pre)\nopt.load_state_dict(opt.state_dict())\nprint(opt.param_groups[0]['evil'])",
    "def pre(o, sd):\n    sd['param_groups'][0]['__array_interface__'] = {'data': (0, False)}\n"
    "super(torch.optim.SGD, opt).register_load_state_dict_pre_hook(pre)\nopt.load_state_dict(opt.state_dict())",
    "torch.optim.Optimizer.register_load_state_dict_pre_hook(opt, lambda o, sd: {'state': {0: print}, "
    "'param_groups': sd['param_groups']})\nopt.load_state_dict(opt.state_dict())",
    "from collections import OrderedDict\nclass Grab(torch.nn.Module):\n    def forward(self, memo):\n        return memo\n"
    "def pre(o, sd):\n    sd['param_groups'][0]['evil'] = torch.nn.Sequential(OrderedDict([('__deepcopy__', Grab())]))\n"
    "    return sd\nopt.register_load_state_dict_pre_hook(pre)\nopt.load_state_dict(opt.state_dict())",
    "h = getattr(opt, 'register_load_state_dict_pre_hook')\nh(lambda o, sd: {'state': {}, 'param_groups': [dict(sd['param_groups'][0], f=len)]})\n"
    "opt.load_state_dict(opt.state_dict())",
]):
    case("redteam6", f"load_state_pre_hook_{i:02d}", _PRE + code)
case("redteam6", "load_state_pre_hook_control", _PRE + "(w * 2).sum().backward()\nopt.step()\n"
     "def pre(o, sd):\n    sd['param_groups'][0]['lr'] = 0.5\nh = opt.register_load_state_dict_pre_hook(pre)\n"
     "opt.register_load_state_dict_pre_hook(lambda o, sd: dict(sd), prepend=True)\nopt.load_state_dict(opt.state_dict())\n"
     "h.remove()\nprint(opt.param_groups[0]['lr'], w)", OK)

# views the engine builds from a snippet's sizes, strides and offsets stay inside their storage (refused as in PyTorch)
_OUT_OF_BOUNDS = [
    "torch.zeros(4).as_strided((2,), (1,), 3)",
    "torch.zeros(4)[2:].as_strided((4,), (1,))",
    "torch.zeros(3, dtype=torch.complex64).imag.as_strided((3,), (2,), 2)",
    "torch.zeros(1).expand(1000).as_strided((1000,), (1,))",
    "torch.zeros(2, 3).unfold(1, 2, 1).as_strided((100,), (1,))",
    "torch.zeros(4, dtype=torch.bfloat16).as_strided((8,), (1,), 0)",
    "torch.arange(10.0).unfold(0, 20, 1)",
    "torch.arange(10.0).unfold(0, 3, 0)",
    "torch.arange(10.0).unfold(0, 3, -1)",
    "torch.nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), stride=0)",
    "torch.nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), padding=-2)",
    "torch.nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), dilation=0)",
    "torch.nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), dilation=5)",
    "torch.nn.functional.max_pool1d(torch.ones(1, 1, 8), 3, stride=-2)",
    "torch.nn.functional.max_pool1d(torch.ones(1, 1, 8), 3, dilation=-2)",
    "torch.nn.functional.avg_pool2d(torch.ones(1, 1, 4, 4), 3, padding=-1)",
    "torch.nn.functional.unfold(torch.ones(1, 1, 4, 4), 3, dilation=-1, stride=-1)",
    "torch.nn.functional.fold(torch.ones(1, 9, 4), (4, 4), 3, dilation=-1)",
    "torch.nn.functional.max_unpool1d(torch.ones(1, 1, 4), torch.tensor([[[100, 2, 3, 10**9]]]), 2)",
    "torch.nn.functional.conv_transpose1d(torch.ones(1, 1, 8), torch.ones(1, 1, 3), stride=-2, dilation=-1)",
]
for i, stmt in enumerate(_OUT_OF_BOUNDS):
    case("redteam6", f"views_in_bounds_{i:02d}", f"import torch\ntry:\n    r = {stmt}\n    escaped = True\n"
         "except (RuntimeError, ValueError, IndexError) as e:\n    escaped = False\nassert not escaped\nprint('refused')", OK)

# gradients handed back by hooks, custom backwards, backward(gradient=...) and forward-mode tangents must match what
# the formulas read (conv's weight gradient builds its windows from the gradient's shape)
_CONV = ("import torch\nimport torch.nn.functional as F\nimport torch.autograd.forward_ad as fwAD\n"
         "x = torch.randn(1, 1, 8, 8, requires_grad=True)\nw = torch.randn(1, 1, 3, 3, requires_grad=True)\n"
         "y = F.conv2d(x, w)\nbig = torch.ones(1, 1, 600, 600)\n"
         "class R(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a.clone()\n"
         "    @staticmethod\n    def backward(ctx, g):\n        return big\n")
for i, stmt in enumerate([
    "y.backward(big)",
    "torch.autograd.grad(y, w, grad_outputs=big)",
    "torch.autograd.backward([y], [big])",
    "y.register_hook(lambda g: big)\n    y.sum().backward()",
    "y.register_hook(lambda g: g.t())\n    y.sum().backward()",
    "R.apply(y).sum().backward()",
    "y.grad_fn.register_prehook(lambda go: (torch.ones(1, 1, 6, 6).t(),))\n    y.sum().backward()",
    "y.grad_fn.register_prehook(lambda go: (torch.ones(1, 1, 6, 6, dtype=torch.float16),))\n    y.sum().backward()",
    "y.grad_fn.register_prehook(lambda go: (torch.ones(1, 1, 6, 6, dtype=torch.int64),))\n    y.sum().backward()",
    "torch.autograd.functional.vjp(lambda a: F.conv2d(a, w), x, big)",
    "torch.autograd.backward([y], grad_tensors=[torch.ones(36, dtype=torch.complex64).reshape(1, 1, 6, 6)])",
    "w.grad = torch.ones(600, 600)",
    "with fwAD.dual_level():\n        fwAD.make_dual(x.detach(), torch.ones(1, 1, 2, 2))",
    "with fwAD.dual_level():\n        d = fwAD.make_dual(torch.zeros(3, 100).t(), torch.zeros(100, 3))\n        d.fill_diagonal_(1.0, wrap=True)",
]):
    case("redteam6", f"gradient_shapes_{i:02d}", _CONV + f"try:\n    {stmt}\n    escaped = True\n"
         "except RuntimeError as e:\n    escaped = False\nassert not escaped\nprint('refused')", OK)

# what engine callbacks, context managers, iterators and unbound methods hand a snippet carries no internals
for i, code in enumerate([
    "with torch.random.fork_rng() as r:\n    print(r.__class__.__mro__)",
    "x = torch.ones(1, requires_grad=True)\nh = x.register_hook(lambda g: g)\nprint(h.hooks_dict_ref())",
    "m = torch.nn.Linear(1, 1)\nfor v in iter(m.state_dict().values()):\n    v.numpy().tofile('@MARKER@')",
    "f = torch.no_grad()(torch.nn.Linear)\nprint(f.__wrapped__)",
    "from torch.utils.data import DataLoader, TensorDataset\n"
    "dl = DataLoader(TensorDataset(torch.ones(4, 1)), batch_size=2, collate_fn=lambda b: b[0][0]._data)\nprint(list(dl))",
    "from torch.func import vmap\nprint(vmap(lambda t: t._data)(torch.ones(2, 3)))",
    "print(torch.Tensor.tolist(torch.nn.Linear(1, 1)))",
    "x = torch.ones(2)\nx.tolist = print",
    "md = torch.nn.ModuleDict()\nsuper(torch.nn.ModuleDict, md).update({'__array_interface__': torch.nn.ReLU()})\nprint(md)",
    "class M(torch.nn.ModuleDict):\n    def put(self):\n        torch.nn.Module.add_module(self, '__deepcopy__', torch.nn.ReLU())\nM().put()",
    "import numpy\nm = torch.nn.Linear(2, 2)\nm.load_state_dict({'weight': torch.ones(2, 2), 'bias': torch.ones(2), "
    "'__array_interface__': torch.ones(1)}, strict=False)\nprint(numpy.asarray(m))",
    "m = torch.nn.Linear(2, 2)\ntorch.nn.utils.weight_norm(m, name='__array_interface__')",
    "m = torch.nn.Linear(2, 2)\ntorch.nn.utils.spectral_norm(m, name='_buffers')",
    "from torch.nn.utils import parametrizations as PZ\nPZ.spectral_norm(torch.nn.Linear(2, 2), name='__dict__')",
    "from torch.nn.utils import parametrize as P\nP.register_parametrization(torch.nn.Linear(2, 2), '__class__', torch.nn.Identity(), unsafe=True)",
    "print(torch.nn.Linear(2, 2).get_parameter('_parameters.weight'))",
    "print(torch.nn.Sequential(torch.nn.Linear(2, 2)).get_submodule('0.__class__'))",
    "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.metadata['k'] = print\nprint(y.grad_fn.metadata['k'].__self__)",
    "m = torch.nn.Linear(1, 1)\nhs = []\nm.register_forward_hook(lambda mod, i, o: hs.append(mod))\nm(torch.ones(1))\nprint(hs[0]._forward_hooks_by_kind)",
    "opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1)\nbox = []\n"
    "opt.register_step_pre_hook(lambda o, a, k: box.append(o))\nopt.step()\nprint(box[0].__dict__)",
]):
    case("redteam6", f"handed_out_{i:02d}", "import torch\n" + code)

# sizes a snippet asks for: stopped by the element or memory limit, the sandbox keeps serving
for i, code in enumerate([
    "a = torch.ones(100000)\nprint(torch.cartesian_prod(a, a).shape)",
    "print(torch.combinations(torch.arange(200), r=5).shape)",
    "print(torch.kron(torch.ones(3000, 3000), torch.ones(30, 30)).shape)",
    "print(torch.einsum('i,j,k->ijk', torch.ones(1000), torch.ones(1000), torch.ones(1000)).shape)",
    "print(torch.tril_indices(10**5, 10**5).shape)",
    "print(torch.nn.functional.one_hot(torch.tensor([10**9])).shape)",
    "print(torch.bincount(torch.tensor([10**10])).shape)",
    "print(torch.histc(torch.ones(2), bins=10**10).shape)",
    "print(torch.ones(2).repeat_interleave(10**10).shape)",
    "print(torch.multinomial(torch.ones(2), 10**10, replacement=True).shape)",
    "print(torch.nn.functional.pad(torch.ones(2), (10**10, 0)).shape)",
    "print(torch.nn.functional.interpolate(torch.ones(1, 1, 4), scale_factor=1e9).shape)",
    "print(torch.vander(torch.ones(3), N=10**10).shape)",
    "print(torch.linspace(0, 1, 10**10).shape)",
    "print(torch.full((2**40,), 1.0).shape)",
    "print(torch.meshgrid(torch.ones(10**5), torch.ones(10**5), indexing='ij')[0].clone().shape)",
    "print(torch.block_diag(*[torch.ones(1, 1)] * 100000).shape)",
    "print(torch.cdist(torch.ones(10**5, 1), torch.ones(10**5, 1)).shape)",
    "print(torch.ones(1).expand(10**9).tolist()[:2])",
    "print(torch.zeros(10**5).expand(10**5, 10**5).max())",
    "x = torch.ones(2, requires_grad=True)\nfor i in range(200000):\n    x = x.view(2)",
]):
    case("redteam6", f"sizes_{i:02d}", "import torch\n" + code, STOPPED)

# --- the stdlib facades: copy, random, itertools, functools, time, typing -------------------------------------
# copy.deepcopy's memo ends up holding the originals' own __dict__s (an `__array_interface__` key there lets NumPy
# read any address), so a snippet never passes or sees one; the protocol's dunder lookups find only what classes
# define; grad_fn nodes and modules cannot be copied; print's collector copies as itself.
for i, code in enumerate([
    "import copy, torch\nm = {}\ncopy.deepcopy(torch.nn.Linear(1, 1), m)\n"
    "d = [v for v in m[id(m)] if type(v) == type({}) and 'training' in v][0]\nsecret = b'HELLO-SECRET-BYTES'\n"
    "d['__array_interface__'] = {'shape': (48,), 'typestr': '|u1', 'data': (id(secret), True), 'version': 3}",
    "import copy, torch\ncopy.deepcopy(torch.nn.Linear(1, 1), memo={})",
    "import copy, torch, collections\ncopy.deepcopy([torch.ones(1)], collections.OrderedDict())",
    "import copy, torch\nx = torch.ones(1)\nprint(copy.deepcopy(x, {id(x): torch}))",
    "import copy, torch\nprint(copy.copy(torch))",
    "import copy, torch\nprint(copy.deepcopy({'m': torch.nn}))",
    "import copy\nprint(copy.deepcopy(copy))",
    "import copy, torch\nx = torch.ones(1, requires_grad=True)\nprint(copy.deepcopy((x * 2).grad_fn))",
    "import copy, torch\nx = torch.ones(1, requires_grad=True)\nprint(copy.copy((x * 2).grad_fn))",
    "import copy, torch\nx = torch.ones(1, requires_grad=True)\nprint(copy.deepcopy((x * 2).grad_fn.next_functions))",
    "import copy, torch\nx = torch.ones(1, requires_grad=True)\ny = copy.deepcopy(x * 2)",
    "import copy, warnings\nprint(copy.copy(warnings.catch_warnings()))",
    "import copy, warnings\nprint(copy.deepcopy([warnings.catch_warnings()]))",
    "import copy\ndef g():\n    yield 1\nprint(copy.deepcopy([g()]))",
    "import copy, torch\nprint(copy.deepcopy(torch.random.fork_rng()))",
    "import copy, torch\nfrom collections import OrderedDict\nclass Grab(torch.nn.Module):\n    def forward(self, memo):\n"
    "        return memo\ns = torch.nn.Sequential(OrderedDict([('__deepcopy__', Grab())]))\nprint(copy.deepcopy(s))",
    "import copy, torch\npd = torch.nn.ParameterDict()\npd.update([('__reduce_ex__', torch.nn.Parameter(torch.ones(1)))])\n"
    "print(copy.copy(pd))",
    "import copy, torch\nm = torch.nn.Linear(1, 1)\nm.add_module('__setstate__', torch.nn.ReLU())\nprint(copy.deepcopy(m))",
    "import copy, torch\nm = torch.nn.Linear(1, 1)\nsetattr(m, '__deepcopy__', print)\nprint(copy.deepcopy(m))",
    "import copy\nclass A:\n    pass\na = A()\nsetattr(a, '__reduce_ex__', print)\nprint(copy.copy(a))",
    "import copy\nclass A:\n    __deepcopy__ = print\nprint(copy.deepcopy(A()))",
    "import copy\nclass A:\n    def __copy__(self):\n        return self\nprint(copy.copy(A()))",
    "import copy\nprint(copy.deepcopy.__globals__)",
    "import copy\nprint(getattr(copy.copy, '__closure__'))",
    "import copy\nprint(copy.copy(copy.deepcopy).__code__)",
    "import copy\nfrom copy import _reconstruct",
    "import copy\nprint(copy.copyreg)",
    "from copy import Error, dispatch_table",
    "import copy\ns = '{0.__globals__}'\nprint(copy.deepcopy(s.format)(copy.copy))",
    "import copy\np = copy.copy('{}'.format)\nprint(p.func, p.args)",
    "import copy, torch\nclass M(torch.nn.ModuleDict):\n    def __init__(self):\n        super().__init__()\n"
    "        self.again = super().__init__\nm = M()\ncopy.deepcopy(m.again)({'__array_interface__': torch.nn.ReLU()})",
    "import copy\nt = copy.deepcopy(type)\nprint(t('X', (), {}))",
    "import copy, torch\nx = torch.ones(1)\nprint(copy.copy(x)._data)",
    "import copy, torch\nx = torch.ones(1)\nprint(copy.deepcopy([x])[0].numpy().base)",
]):
    case("stdlib", f"copy_{i:02d}", code)
case("stdlib", "copy_print_counts_with_the_run",
     "import copy\np = copy.deepcopy(print)\nq = copy.copy(print)\nfor i in range(3000):\n    p('x' * 1000)\n"
     "    q('y' * 1000)\n    print('z' * 1000)", STOPPED)
case("stdlib", "copy_deep_recursion", "import copy\na = []\nfor i in range(100000):\n    a = [a]\ncopy.deepcopy(a)", STOPPED)
case("stdlib", "copy_controls", """
import copy, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
best = copy.deepcopy(model.state_dict())
target = copy.deepcopy(model)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.randn(5, 3)).sum().backward()
opt.step()
saved = copy.deepcopy(opt.state_dict())
model.load_state_dict(best)
x = torch.ones(3)
a, b = copy.deepcopy([x, x[1:]])
b[0] = 5
print(torch.equal(target[0].weight, model[0].weight), sorted(saved['state'][0]), a.tolist(), x.tolist())
print(copy.deepcopy(type) is type, copy.copy(print) is not None, copy.deepcopy([torch.float32, len]))
""", OK)

# random: one generator per run; what it picks is checked like seq[i], and it shuffles only what seq[i] = v may change
for i, code in enumerate([
    "import random, torch\nm = torch.nn.Linear(2, 2)\nrandom.shuffle(m.state_dict())",
    "import random, torch\nw = torch.ones(1, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1, momentum=0.9)\n"
    "(w * 2).sum().backward()\nopt.step()\nrandom.shuffle(opt.state)",
    "import random\nprint(random.Random(0).getstate())",
    "import random\nprint(random.getstate())",
    "import random\nrandom.setstate((3, tuple([0] * 624) + (10**9,), None))",
    "import random\nprint(random.seed.__self__)",
    "import random\nprint(getattr(random.randint, '__func__'))",
    "import random\nprint(getattr(random.choice, '__globals__'))",
    "import random\nfrom random import _inst",
    "import random\nprint(random.SystemRandom().random())",
    "import random\nprint(random._os)",
    "import random.os",
    "import random, torch\nrandom.seed(torch.ones(1))",
    "import random\nprint(random.getrandbits(10**11))",
]):
    case("stdlib", f"random_{i:02d}", code)
case("stdlib", "random_huge_choices", "import random\nprint(len(random.choices(range(10), k=10**9)))", STOPPED)
case("stdlib", "random_controls", """
import random
random.seed(0)
xs = list(range(10))
random.shuffle(xs)
print(random.random(), random.randint(1, 10), random.uniform(0, 1), random.gauss(0, 1), xs, random.choice(xs),
      random.sample(xs, 3), random.choices(xs, k=2))
""", OK)

# itertools / functools / time / typing: only their listed names; what they call goes through the same guards
for i, code in enumerate([
    "import functools\nprint(functools.reduce(getattr, ['__class__', '__base__'], 1))",
    "import itertools\nprint(list(itertools.starmap(getattr, [(len, '__self__')])))",
    "import itertools\nprint(list(itertools.accumulate(['__class__', '__mro__'], getattr, initial=1)))",
    "import itertools\nprint(itertools.chain.__reduce__)",
    "import itertools\nprint(getattr(itertools.chain, 'mro'))",
    "import itertools\nprint(getattr(itertools.chain.from_iterable, '__self__'))",
    "import itertools\nclass C(itertools.chain):\n    pass",
    "import itertools\nt = itertools.tee([1, 2])\nprint(t[0].__copy__())",
    "import functools\ndef f():\n    pass\nfunctools.update_wrapper(f, f, assigned=('__globals__',))",
    "import functools\nw = functools.wraps(len, assigned=('__self__',))",
    "from functools import lru_cache",
    "import functools\nprint(functools.cached_property)",
    "import functools\nf = functools.partial(print)\nf.func = len",
    "import functools\nprint(functools.partial(print).args)",
    "import functools\nprint(functools.partial(functools.partial, print)(**{'__x': 1}))",
    "import functools\nprint(functools.partial(type, 'X', (), {})())",
    "import functools\nprint(functools.cmp_to_key(len)(1).obj)",
    "import functools\nprint(functools.partial.__new__)",
    "import functools\nprint(functools._functools)",
    "import time\ntime.sleep(10)",
    "import time\nprint(getattr(time.time, '__self__'))",
    "import time\nd = {'t': time.perf_counter}\nprint(d['t'].__self__)",
    "from time import process_time, time_ns",
    "import typing\nprint(typing.NamedTuple('P', [('x', int)]))",
    "from typing import TypeVar",
    "import typing\nprint(typing.Type[int]('X', (), {}))",
    "import typing\nclass P(typing.Any):\n    pass",
    "import typing\nclass P(typing.List[int]):\n    pass",
    "import typing\nprint(typing.List.__origin__)",
    "import typing\nprint(typing.get_type_hints)",
    "import typing.io",
]):
    case("stdlib", f"tools_{i:02d}", code)
for i, code in enumerate([
    "import itertools\nprint(len(list(itertools.product(range(10**5), repeat=10**5))))",
    "import itertools\nprint(len(list(itertools.permutations(range(50)))))",
    "import functools, itertools\nprint(functools.reduce(lambda a, b: a + b, itertools.count()))",
    "import itertools\nprint(len(itertools.tee([1], 10**9)))",
]):
    case("stdlib", f"tools_sizes_{i:02d}", code, STOPPED)
case("stdlib", "tools_controls", """
import itertools, functools, time, torch
from typing import List, Optional, Dict, Tuple
def f(x: List[int], y: Optional[Dict[str, int]] = None) -> Tuple[int, int]:
    return (sum(x), 0)
t0 = time.perf_counter()
add = functools.partial(torch.add, alpha=2)
timers = {'t': time.perf_counter, 'r': functools.reduce}
print(list(itertools.product([0.1, 0.01], [16, 32])), list(itertools.chain.from_iterable([[1], [2]])),
      add(torch.ones(2), torch.ones(2)), functools.reduce(lambda a, b: a * b, [1, 2, 3]), f([1, 2]),
      time.perf_counter() >= t0, timers['r'](max, [1, 3, 2]), List[int])
""", OK)

# --- module hook dicts (m._forward_hooks...): read and remove only, through a HookDict that holds no internals ------
_HK = ("import torch\nm = torch.nn.Linear(1, 1)\nh = m.register_forward_hook(lambda mod, i, o: None)\n"
       "hd = m._forward_hooks\n")
for i, code in enumerate([
    "print(hd._hooks)",
    "print(getattr(hd, '_hooks'))",
    "print(getattr(hd, '_check'))",
    "hd[0] = print",
    "hd[h.id + 1] = torch.nn.Linear",
    "hd.update({1: print})",
    "hd.setdefault(5, print)",
    "hd.move_to_end(h.id)",
    "print(hd.clear.__self__)",
    "print(getattr(hd.clear, '__self__'))",
    "print(type(hd)({}))",
    "dict.update(hd, {1: print})",
    "import collections\ncollections.OrderedDict.update(hd, {1: print})",
    "print(hd.keys().mapping)",
    "print(hd.values().mapping)",
    "print(m._forward_hooks_by_kind)",
    "print(getattr(m, '_forward_hooks_by_kind'))",
    "print(m._forward_hooks_with_kwargs)",
    "print(torch.nn.Linear._forward_hooks)",
    "print(getattr(torch.nn.Linear, '_forward_pre_hooks'))",
    "print(hd.__class__.__init__)",
    "m._forward_hooks = {0: print}",
    "setattr(m, '_forward_hooks', {})",
    "del m._forward_hooks",
    "m._forward_hooks |= {1: print}",
    "import copy\nd = copy.copy(hd)\nd[5] = print",
    "import copy\nd = copy.deepcopy(hd)\nd.update({5: print})",
    "print(str.format('{0._hooks}', hd))",
    "print('{0._hooks}'.format(hd))",
    "print(list(hd.values())[0].__globals__)",
    "print(getattr(list(hd.values())[0], '__closure__'))",
    "print(hd.pop(h.id).__code__)",
    "x = torch.ones(1)\nprint(x._forward_hooks)",
    "x = torch.ones(1, requires_grad=True)\nprint((x * 2).grad_fn._forward_hooks)",
    "opt = torch.optim.SGD(m.parameters(), lr=0.1)\nprint(opt._forward_hooks)",
    "class A:\n    pass\nprint(A()._forward_hooks)",
    "class B:\n    def __init__(self):\n        self.x = 1\nprint(getattr(B(), '_state_dict_hooks'))",
    "import io\nb = io.BytesIO()\ntorch.save(hd, b)\nb.seek(0)\nprint(torch.load(b, weights_only=False))",
    "l = torch.nn.LazyLinear(2)\nf = list(l._forward_pre_hooks.values())[0]\nprint(f.__module__, f.__globals__)",
    "l = torch.nn.LazyLinear(2)\nf = list(l._forward_pre_hooks.values())[0]\nf(torch.nn.Linear(1, 1), (torch.ones(1),))",
    "w = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))\nhook = list(w._forward_pre_hooks.values())[0]\n"
    "hook.name = '__array_interface__'",
    "w = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))\nhook = list(w._forward_pre_hooks.values())[0]\n"
    "hook.apply(torch.nn.Linear(2, 2), '__array_interface__', 0)",
    "w = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))\nhook = list(w._forward_pre_hooks.values())[0]\n"
    "hook.apply(torch.nn.Linear(2, 2), '_parameters', 0)",
    "w = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))\nhook = list(w._forward_pre_hooks.values())[0]\n"
    "class T:\n    pass\nt = T()\nhook(t, None)",
    "w = torch.nn.utils.spectral_norm(torch.nn.Linear(2, 2))\nfor d in (w._forward_pre_hooks, w._state_dict_hooks, "
    "w._load_state_dict_pre_hooks):\n    for f in d.values():\n        print(f.fn.__dict__)",
]):
    case("hook_dicts", f"hook_dict_{i:02d}", _HK + code)
case("hook_dicts", "hook_dict_many", _HK + "for i in range(200000):\n    m.register_forward_hook(print)\n"
     "print(m._forward_hooks)", STOPPED)
case("hook_dicts", "hook_dict_lazy_class_swap", "import torch\nl = torch.nn.LazyLinear(2)\nl.cls_to_become = torch.optim.SGD\n"
     "l(torch.ones(1, 3))\nprint(l.param_groups)", REFUSED)
case("hook_dicts", "hook_dict_controls", _HK + """
import copy
acts = []
g = m.register_forward_pre_hook(lambda mod, inp: acts.append(len(inp)))
print(len(m._forward_hooks), len(m._forward_pre_hooks), h.id in hd, list(hd) == [h.id], bool(m._backward_hooks))
for f in m._forward_pre_hooks.values():
    print(callable(f), f.__name__)
m(torch.ones(1))
print(acts, copy.copy(hd) == hd, copy.deepcopy(m._state_dict_hooks), hd.get(12345), type(hd))
m._forward_pre_hooks.clear()
del hd[h.id]
print(len(hd), m._forward_pre_hooks, print, print.__name__, type(print))
w = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))
print([type(f).__name__ for f in w._forward_pre_hooks.values()], list(w._forward_pre_hooks.values())[0].name)
""", OK)

# --- t.numpy() shares the tensor's memory (as in PyTorch): element access only, never layout or raw memory ----------
_NV = "import torch\nimport numpy as np\nt = torch.arange(6.0).reshape(2, 3)\na = t.numpy()\n"
for i, code in enumerate([
    "print(a.base)",
    "print(a.ctypes)",
    "print(a.data)",
    "print(a.strides)",
    "a.strides = (0, 0)",
    "a.shape = (1000000,)",
    "a.dtype = np.int8",
    "a.setflags(write=True)",
    "a.resize(1000000, refcheck=False)",
    "print(a.view(np.int8))",
    "print(a.getfield(np.float64, 0))",
    "a.setfield(1.0, np.float32, 0)",
    "print(a.__array_interface__)",
    "print(getattr(a, '__array_interface__'))",
    "print(a.T.ctypes.data)",
    "print(a.reshape(-1).base)",
    "print(np.asarray(t).data)",
    "print(np.lib.stride_tricks.as_strided(a, (10**6,), (8,)))",
    "print(np.ndarray((10**6,), np.float32, a))",
    "print(np.frombuffer(b'x' * 8, np.float32))",
    "print(a.reshape(-1)[100])",
    "a.tofile('@MARKER@')",
    "a.dump('@MARKER@')",
    "print(a.astype(object))",
    "a[0, 0] = 'x'",
    "a[0] = [print, print, print]",
    "print(np.ctypeslib)",
    "import copy\nb = copy.copy(a)\nprint(b.base)",
    "e = torch.ones(1).expand(3).numpy()\ne.setflags(write=1)",
    "print(t.untyped_storage())",
    "print(t.data.numpy().flags)",
]):
    case("numpy_views", f"numpy_view_{i:02d}", _NV + code)
case("numpy_views", "numpy_view_controls", _NV + """
a[0, 0] = 100
a += 1
np.add(a, 1, a)
r = torch.from_numpy(a)
r[1, 1] = -5
e = torch.ones(1).expand(3)
e.numpy()[0] = 7
print(t, t._version, r.tolist(), e, a.T.shape, np.asarray(t).sum())
""", OK)

# --- NumPy arrays get the tensor element limit (before allocating), whatever the snippet catches ---------------------
for i, expr in enumerate([
    "np.zeros(10**7)", "np.ones((10**6, 10**6))", "np.empty((2**31,))", "np.full(10**8, 1.0)", "np.arange(10**8)",
    "np.arange(0.0, 1e300, 1.0)", "np.linspace(0, 1, 10**12)", "np.logspace(0, 1, 10**8)", "np.eye(10**5)",
    "np.identity(10**5)", "np.tile(np.ones(10), (10**4, 10**4))", "np.repeat(np.ones(10), 10**8)",
    "np.broadcast_to(1.0, (10**6, 10**6)).copy()", "np.outer(np.ones(10**4), np.ones(10**4))",
    "np.kron(np.ones(10**4), np.ones(10**4))", "np.meshgrid(*[np.ones(10)] * 8)", "np.diag(np.ones(10**4))",
    "np.bincount([2**40])", "np.histogram([1.0], bins=10**9)", "np.zeros((3, 2000, 2000))",
    "np.power(np.ones((10**4, 1)), np.ones((1, 10**4)))", "np.where(np.ones((10**4, 1)) > 0, 1.0, np.ones(10**4))",
    "np.ones_like(np.ones(3), shape=(10**8,))", "np.stack([np.ones(4 * 10**6)] * 3)",
    "np.einsum('i,j,k->ijk', np.ones(300), np.ones(300), np.ones(300))", "np.dot(np.ones((10**4, 1)), np.ones((1, 10**4)))",
    "np.zeros(4 * 10**6 + 1)",
]):
    case("numpy_sizes", f"numpy_size_{i:02d}", "import numpy as np\ntry:\n    a = " + expr
         + "\nexcept Exception as e:\n    print('caught', e)\nprint('went on')", STOPPED)
case("numpy_sizes", "numpy_size_controls", """
import numpy as np
print(np.zeros(4 * 10**6).shape, np.zeros((10**9, 0)).shape, np.eye(10**9, 0).shape, np.arange(0).shape,
      np.tile(np.ones(4), (10**6,)).shape, np.linspace(0, 1, 4 * 10**6).shape)
""", OK)

# --- more red team: RestrictedPython's `printed`, lazy modules changing class, dunder keys in plain dicts ------------
for i, code in enumerate([
    "print(printed)",
    "x = printed\nprint(x(1))",
    "printed = 5",
    "import torch\nl = torch.nn.LazyLinear(2)\nl.cls_to_become = torch.nn.ModuleDict\ntry:\n    l(torch.ones(1, 3))\n"
    "except NotImplementedError:\n    pass\nl.update({'__array_interface__': torch.nn.ReLU()})",
    "import torch\nl = torch.nn.LazyLinear(2)\nl.cls_to_become = torch.nn.ParameterDict\ntry:\n    l(torch.ones(1, 3))\n"
    "except NotImplementedError:\n    pass\nl.update({'__array_interface__': 5})",
    "import torch\nl = torch.nn.LazyLinear(2)\nl.cls_to_become = torch.nn.ParameterDict\ntry:\n    l(torch.ones(1, 3))\n"
    "except NotImplementedError:\n    pass\nl['__array_interface__'] = 5",
    "import torch\nimport numpy as np\nl = torch.nn.LazyLinear(2)\nclass U:\n    pass\nl.cls_to_become = U\ntry:\n"
    "    l(torch.ones(1, 3))\nexcept AttributeError:\n    pass\nprint(np.asarray(l))",
    "import torch\nl = torch.nn.LazyLinear(2)\nl.cls_to_become = torch.finfo\nl(torch.ones(1, 3))",
    "import torch\nimport numpy as np\nopt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1)\n"
    "opt.defaults['__array_interface__'] = {'shape': (8,), 'typestr': '|u1', 'data': (id(opt), True), 'version': 3}\n"
    "print(np.asarray(opt))",
    "import torch\nopt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1)\n"
    "opt.defaults['__array_interface__'] = {'shape': (8,), 'typestr': '|u1', 'data': (id(opt), True), 'version': 3}\n"
    "print(torch.tensor(opt))",
    "import torch\nm = torch.nn.Linear(1, 1)\nsd = m.state_dict(prefix='__array_interface__')\nprint(sd.__array_interface__)",
    "import torch\nit = iter(torch.utils.data.DataLoader(list(range(4)), batch_size=2))\nprint(it._dataset)",
]):
    case("redteam9", f"misc_{i:02d}", code)
case("redteam9", "misc_controls", """
import torch
from torch.utils.data import DataLoader, TensorDataset
dl = DataLoader(TensorDataset(torch.ones(4, 1)), batch_size=2, num_workers=2)
m = torch.nn.Linear(1, 1)
print(len(list(dl)), list(m.state_dict(prefix='enc.')), print, type(print))
""", OK)

# --- red team 10: tensors saved for backward swapped for others of another shape -----------------------------------
# conv's weight gradient built its windows from the gradient's shape over the saved input: an unpack hook (or the
# `cloned` dict of allow_mutation_on_saved_tensors) handing back a smaller input made them read past its array (heap
# memory came back as the weight's gradient)
_SWAP = "import torch\nimport torch.nn.functional as F\n"
for i, code in enumerate([
    "x = torch.randn(2, 2, 8, 8)\nw = torch.randn(2, 2, 3, 3, requires_grad=True)\nsmall = torch.zeros(2, 2, 2, 2)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: small if t.shape == (2, 2, 8, 8) else t):\n"
    "    y = F.conv2d(x, w, padding=1)\ny.sum().backward()\nprint(w.grad)",
    "with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:\n    x = torch.randn(1, 1, 4096)\n"
    "    w = torch.randn(1, 1, 3, requires_grad=True)\n    y = F.conv1d(x, w, dilation=2)\n    for k in ctx.original:\n"
    "        if ctx.original[k].shape == (1, 1, 4096):\n            ctx.cloned[k] = torch.zeros(1, 1, 8)\n"
    "    y.sum().backward()\nprint(w.grad)",
    "x = torch.randn(1, 1, 64, 64)\nw = torch.randn(1, 1, 5, 5, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: torch.zeros(1, 1, 1, 1) if t.shape == x.shape else t):\n"
    "    y = F.conv2d(x, w, stride=1)\ny.sum().backward()\nprint(w.grad.flatten().tolist())",
    "x = torch.randn(1, 1, 6, 6, 6)\nw = torch.randn(1, 1, 2, 2, 2, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: torch.zeros(1, 1, 1, 1, 1) if t.shape == x.shape else t):\n"
    "    y = F.conv3d(x, w, stride=2)\ny.sum().backward()\nprint(w.grad)",
    "with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:\n    x = torch.randn(4, requires_grad=True)\n"
    "    y = x * x\n    for k in ctx.original:\n        ctx.cloned[k] = print\n    y.sum().backward()",
    "with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:\n    x = torch.randn(4, requires_grad=True)\n"
    "    y = x * x\n    for k in ctx.original:\n        ctx.original[k] = torch.ones(100000, dtype=torch.complex128)\n"
    "    y.sum().backward()",
    "with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:\n    x = torch.ones(2, requires_grad=True)\n"
    "    y = x * 1\n    z = y * y\n    for k in ctx.original:\n        print(k.__dict__, ctx._values)",
    "with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:\n    ctx.original = print",
]):
    case("redteam10", f"saved_swap_{i:02d}", _SWAP + code)
case("redteam10", "saved_swap_transposed", _SWAP + "x = torch.randn(1, 1, 6, 6)\nw = torch.randn(1, 1, 3, 3, requires_grad=True)\n"
     "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: torch.zeros(1, 1, 1, 1) if t.shape == x.shape else t):\n"
     "    y = F.conv_transpose2d(x, w, stride=2)\ny.sum().backward()\nprint(w.grad)", ANY)
case("redteam10", "saved_swap_controls", _SWAP + """
x = torch.randn(1, 2, 7, 7, requires_grad=True)
w = torch.randn(3, 2, 3, 3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    y = F.conv2d(x, w, stride=2, padding=1, dilation=2)
    z = F.max_pool2d(x, 3, 2, 1, ceil_mode=True) + F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)
(y.sum() + z.sum()).backward()
with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
    a = torch.ones(3, requires_grad=True)
    b = a * 1
    c = b * b
    b.add_(1)
    c.sum().backward()
print(w.grad.shape, x.grad.shape, a.grad)
""", OK)

# --- red team 10: what else was tried and held ---------------------------------------------------------------------
for i, code in enumerate([
    # format strings: attribute and index access refused however the template is built; widths are output
    "print('{0.__class__}'.format(1))",
    "s = '{0.__class__}'\nprint(s.format(1))",
    "s = '{0' + '.__globals__}'\nprint(str.format(s, print))",
    "import torch\nx = torch.ones(3)\nprint(x.__format__('{0.__class__}'))",
    "import torch\nprint('{0:{1}}'.format(torch.ones(1), '{0.__class__}'))",
    "print('{x.__class__.__mro__}'.format(x=1))",
    "print('{0[__builtins__]}'.format({}))",
    # exceptions carry only args: no traceback, context, cause, notes, groups
    "import torch\ntry:\n    torch.ones(2) @ torch.ones(3)\nexcept Exception as e:\n    print(e.__traceback__)",
    "import torch\ntry:\n    torch.ones(2) @ torch.ones(3)\nexcept Exception as e:\n    print(e.__context__, e.__cause__)",
    "import torch\ntry:\n    torch.ones(2) @ torch.ones(3)\nexcept Exception as e:\n    print(e.with_traceback(None))",
    "import torch\ntry:\n    torch.ones(2) @ torch.ones(3)\nexcept Exception as e:\n    e.add_note('x')",
    "try:\n    raise ValueError(1)\nexcept* ValueError as eg:\n    print(eg.exceptions)",
    "try:\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        raise KeyError(2)\nexcept KeyError as e:\n    print(getattr(e, '__context__'))",
    "def f():\n    raise StopIteration(print)\ntry:\n    f()\nexcept StopIteration as e:\n    print(e.value)",
    # annotations are refused where they would run outside the guards
    "x: print('annotation ran') = 5",
    # distributions: lazy properties hand out no descriptors that bind to other objects
    "import torch\np = torch.distributions.Bernoulli.logits\nprint(p.wrapped.__globals__)",
    "import torch\np = torch.distributions.Bernoulli.logits\nprint(p.__get__)",
    "import torch\nq = torch.distributions.Bernoulli.logits.setter(print)\nprint(q.fset)",
    "import torch\nprint(torch.distributions.Bernoulli.logits.fget.__code__)",
    "import torch\nfrom torch.distributions import kl\nkl.register_kl(torch.distributions.Normal, str)(getattr)\n"
    "print(kl.kl_divergence(torch.distributions.Normal(0., 1.), '__dict__'))",
    "import torch\nimport torch.distributions as D\nprint(D.Normal(0., 1.).expand((2,), print))",
    # torch.func and utils: names reached through paths and collate
    "import torch\nfrom torch.func import functional_call\nm = torch.nn.Linear(2, 2)\n"
    "print(functional_call(m, {'weight.__class__': torch.ones(2, 2)}, (torch.ones(2),)))",
    "import torch\nfrom torch.func import functional_call\nm = torch.nn.Linear(2, 2)\n"
    "print(functional_call(m, ({'weight': torch.ones(2, 2)}, {'__dict__': torch.ones(1)}), (torch.ones(2),)))",
    "import torch\nfrom torch.func import functional_call\nm = torch.nn.Linear(2, 2)\nprint(functional_call(m, {'training': print}, (torch.ones(2),)))",
    "import torch\nfrom torch.func import functional_call\nm = torch.nn.Linear(2, 2)\nm.cls = torch.nn.Linear\n"
    "print(functional_call(m, {'cls.evil': torch.ones(1)}, (torch.ones(2),)))",
    "import torch\nfrom torch.utils.data import default_collate\nclass P(object):\n    pass\nprint(default_collate([P(), P()]))",
    "import torch\nl = torch.nn.MSELoss(**{'__array_interface__': {'data': (0, False)}})",
    # tensors: attribute writes stay within PyTorch's
    "import torch\nx = torch.ones(2)\nx.is_sparse = True",
    "import torch\nx = torch.ones(2, requires_grad=True)\nx.data = print",
    "import torch\nx = torch.ones(2)\nx.shape = (1000,)",
    "import torch\nx = torch.ones(2)\nx.numpy = print",
    "import torch\nx = torch.ones(2)\nx.__class__ = torch.nn.Parameter",
    "import torch\nx = torch.ones(2)\nclass A(object):\n    pass\nprint(x.as_subclass(A))",
    "import torch\nx = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(3, dtype=torch.complex64)",
    "import torch\nx = torch.ones(2)\ndel x.grad",
    "import torch\nm = torch.nn.Linear(1, 1)\ndel m._parameters",
    "import torch\nimport torch.distributions as D\nD.Normal.arg_constraints = {}",
    "import torch\nprint(torch.distributions.Distribution.set_default_validate_args.__globals__)",
]):
    case("redteam10", f"rt10_held_{i:02d}", code)
for i, code in enumerate([
    "print('{:>1000000000}'.format(1))",
    "print('%*d' % (10**9, 1))",
    "print(f\"{1:{10**9}}\")",
    "x = 10 ** 10 ** 8\nprint(x > 0)",
    "print(len(str(2 ** 100000)))",
    "a = []\nfor i in range(100000):\n    a = [a]\nprint(a)",
    "d = {}\nfor i in range(100000):\n    d = {'k': d}\nprint(d)",
    "def f(n):\n    return f(n + 1)\nf(0)",
    "import numpy as np\nprint(np.diag(np.ones(3), k=10**5).shape)",
    "import numpy as np\nprint(np.repeat(np.ones(2), [10**9, 1]).shape)",
    "import numpy as np\nprint(np.zeros_like(np.ones(3), shape=(10**5, 10**5)).shape)",
    "import numpy as np\nimport torch\nprint(torch.from_numpy(np.broadcast_to(1.0, (10**6, 10**6))).sum())",
    "b = bytes(10**10)",
    "s = 'x' * (10**9)\nprint(len(s))",
]):
    case("redteam10", f"rt10_sizes_{i:02d}", code, STOPPED)
case("redteam10", "rt10_map_location_callable", "import torch, io\nb = io.BytesIO()\ntorch.save(torch.ones(2), b)\nb.seek(0)\n"
     "print(torch.load(b, map_location=lambda s, l: s.__class__))", ANY)
case("redteam10", "held_controls", """
import torch
import numpy as np
import torch.distributions as D
from torch.nn.modules.module import register_module_forward_hook
seen = []
h = register_module_forward_hook(lambda m, i, o: seen.append(type(m).__name__))
torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())(torch.ones(1, 2))
h.remove()
x = torch.tensor(1.5)
b = D.Bernoulli(probs=torch.tensor(0.3))
print(seen, f"{x:.3f}", '{:.2e}'.format(x), '%.2f' % x, '%(a)s' % {'a': torch.ones(1)}, f"{x=}")
print(D.Bernoulli.logits.fget(b), np.histogram(np.array([0.0, 1.0] + [0.5] * 10), bins='auto')[0].shape)
""", OK)

# --- state a run changes in the engine and the interpreter dies with its process (checked by the next run) --------------
for i, code in enumerate([
    "import torch\ntorch.set_default_dtype(torch.float64)",
    "import torch\ntorch.set_printoptions(precision=1, sci_mode=True)",
    "import torch\ntorch.autograd.set_detect_anomaly(True)",
    "import torch\nfrom torch.nn.modules.module import register_module_forward_hook\nregister_module_forward_hook(lambda m, i, o: o * 0)",
    "import warnings\nwarnings.simplefilter('error')",
    "import torch\ntorch.distributions.Distribution.set_default_validate_args(False)",
    "import torch\nimport torch.distributions as D\nD.kl.register_kl(D.Normal, D.Normal)(lambda p, q: 123)",
    "import torch\ntorch.backends.cudnn.deterministic = True",
    "import torch\nimport torch.distributions as D\nD.Normal.arg_constraints['evil'] = D.constraints.real\ndel D.Normal.arg_constraints['scale']",
    "import torch\ndef g():\n    with torch.no_grad():\n        yield 1\nit = g()\nnext(it)\nkeep = [it]",
    "import torch\ndef g():\n    with torch.autograd.graph.saved_tensors_hooks(lambda t: 0, lambda p: p):\n        yield 1\nit = g()\nnext(it)\nkeep = [it]",
]):
    case("persistence", f"engine_state_{i:02d}", code, ANY)

# --- round 11: SavedTensors, map_location storages, flags that take only a bool, the vetted stdlib's wrappers ---------
_RAW = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * x\nr = y.grad_fn._raw_saved_self\n"
for i, code in enumerate([
    _RAW + "print(r.tensor)",  # the saved tensor itself, past the version check
    _RAW + "print(r.packed)",  # the pack hook's result and the engine's unpack closure
    _RAW + "r.register_hooks(lambda t: t, lambda t: t)\nprint(r.packed[1].__closure__)",
    _RAW + "print(r.placeholder(torch.ones(1)).tensor)",
    _RAW + "print(r.version, r.is_output)",
    _RAW + "r.tensor = torch.zeros(2)",
    _RAW + "print(getattr(r, 'tens' + 'or'))",
    _RAW + "print(r.__class__.placeholder)",
    _RAW + "print(r.__slots__)",
    "import torch\ny = torch.ones(2, requires_grad=True).exp()\nprint(y.grad_fn._raw_saved_result.tensor._data)",
]):
    case("redteam11", f"raw_saved_{i:02d}", code)
case("redteam11", "raw_saved_control", _RAW + "r.register_hooks(lambda t: t * 2, lambda t: t)\ny.sum().backward()\n"
     "print(type(r).__name__, x.grad, hasattr(r, 'tensor'))", OK)
for i, code in enumerate([
    "import torch\nx = torch.ones(2)\nx.requires_grad = print",
    "import torch\nx = torch.ones(2)\nx.requires_grad = [1]\nprint(x.requires_grad)",
    "import torch\nx = torch.ones(2)\nsetattr(x, 'requires_grad', torch.ones)",
    "import torch\np = torch.nn.Parameter(torch.ones(2))\np.requires_grad = 'yes'",
]):
    case("redteam11", f"requires_grad_bool_{i:02d}", code)
_SAVED = "import torch, io\nb = io.BytesIO()\ntorch.save({'w': torch.ones(2)}, b)\nb.seek(0)\n"
for i, code in enumerate([
    _SAVED + "torch.load(b, map_location=lambda s, loc: print(s._nbytes))",
    _SAVED + "torch.load(b, map_location=lambda s, loc: print(s.__class__.__init__))",
    _SAVED + "keep = []\ntorch.load(b, map_location=lambda s, loc: keep.append(s))\nkeep[0].nbytes = print",
    _SAVED + "torch.load(b, map_location=lambda s, loc: print(s.numpy()))",
    _SAVED + "torch.load(b, map_location=lambda s, loc: print(s.data_ptr()))",
    _SAVED + "print(torch.load(b, map_location=lambda s, loc: torch.zeros(2)))",
    _SAVED + "torch.load(b, map_location=lambda s, loc: open('@MARKER@', 'w'))",
]):
    case("redteam11", f"map_location_{i:02d}", code)
case("redteam11", "map_location_control", _SAVED + "seen = []\n"
     "w = torch.load(b, map_location=lambda s, loc: seen.append((str(s.device), s.nbytes(), loc)))['w']\n"
     "print(w, seen)\nassert seen == [('cpu', 8, 'cpu')]", OK)
for i, code in enumerate([
    "import time\nprint(time.time.__closure__)",
    "import time\nprint(time.time.__wrapped__)",
    "import time\nprint(time.perf_counter.__globals__)",
    "import random\nprint(random.random.__closure__[0].cell_contents)",
    "import random\nprint(random.seed.__closure__)",
    "import random\nprint(random.choice.__code__)",
    "import random\nprint(random.seed.__defaults__)",
    "import random\nrandom.random.x = 1",
    "import random\nprint(random.random.__kwdefaults__)",
]):
    case("redteam11", f"stdlib_wrappers_{i:02d}", code)
case("redteam11", "stdlib_wrappers_control", "import time, random\nt0 = time.perf_counter()\nrandom.seed(3)\n"
     "print(random.random(), random.choice([1, 2, 3]), time.time() > 0, time.perf_counter() >= t0, "
     "time.time.__name__)", OK)


# --- learner class features: special methods, @property/@classmethod, decorators, nonlocal, own exceptions ------
for i, code in enumerate([  # controls: what learners write
    "class X:\n    @classmethod\n    def make(cls):\n        return cls()\n    @property\n    def p(self):\n"
    "        return 1\nprint(X.make().p)",
    "class E(ValueError):\n    def __init__(self, msg, code):\n        super().__init__(msg)\n        self.code = code\n"
    "try:\n    raise E('bad', 3)\nexcept E as e:\n    print(e, e.code, isinstance(e, ValueError))",
    "def f():\n    x = 0\n    def g():\n        nonlocal x\n        x += 1\n    g()\n    return x\nprint(f())",
    "class X:\n    def __call__(self, v):\n        return v + 1\n    def __repr__(self):\n        return 'X()'\nprint(X()(1), X())",
    "def deco(f):\n    def w(*a):\n        return f(*a) * 2\n    return w\n@deco\ndef g(x):\n    return x\nprint(g(2))",
    "if __name__ == '__main__':\n    print('main')",
    "from collections import Counter, defaultdict, deque\nc = Counter('aab')\nc['z'] += 1\nd = defaultdict(list)\n"
    "d['k'].append(1)\nq = deque([1], maxlen=2)\nq.appendleft(0)\nprint(c.most_common(1), dict(d), q)",
]):
    case("learner_classes", f"learner_ok_{i:02d}", code, OK)
for i, code in enumerate([
    # special methods trusted code calls with internal objects, or whose answers it reads unchecked
    "class X:\n    def __deepcopy__(self, memo):\n        return memo\nimport copy\nprint(copy.deepcopy(X()))",
    "class X:\n    def __reduce_ex__(self, p):\n        return (print, ('hi',))\nimport copy\ncopy.copy(X())",
    "class X:\n    def __index__(self):\n        return 10 ** 9\nimport torch\nprint(torch.ones(3)[X()])",
    "class X:\n    def __format__(self, spec):\n        return spec\nprint(f'{X():abc}')",
    "class X:\n    def __array__(self, *a):\n        return 1\nimport numpy as np\nprint(np.asarray(X()))",
    "class X:\n    def __get__(self, obj, tp):\n        return obj\nclass Y:\n    x = X()\nprint(Y().x)",
    "class X:\n    def __new__(cls):\n        return 1",
    # the learner special methods stay off classes deriving from a PyTorch class
    "import torch\nclass M(torch.nn.Module):\n    def __eq__(self, other):\n        return True\nprint(M() == 1)",
    "import torch\nclass F(torch.autograd.Function):\n    def __call__(self, *a):\n        return 1\nprint(F()(1))",
    "import torch\nclass P:\n    pass\nclass M(P, torch.nn.Module):\n    def __hash__(self):\n        return 1",
    "import torch\nclass P:\n    def __repr__(self):\n        return 'p'\nclass M(torch.nn.Module, P):\n    pass\n"
    "class N(M):\n    def __repr__(self):\n        return 'n'\nprint(N())",
    # __exit__ cannot swallow a sandbox limit, nor see the traceback
    "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return True\n"
    "with S():\n    while True:\n        pass\nprint('escaped')",
    "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n"
    "        print(getattr(tb, 'tb' + '_frame'))\n        return True\nwith S():\n    1 / 0",
    "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n"
    "        raise ValueError(tb)\nwith S():\n    1 / 0",
    # own exceptions: only from Exception and the built-in exceptions, no internals on them
    "class E(Exception):\n    pass\ntry:\n    raise E()\nexcept E as e:\n    print(getattr(e, '__traceback__'))",
    "class E(Exception):\n    pass\nprint(E.__subclasses__())",
    "class E(Exception):\n    pass\nprint(getattr(E, 'mro')())",
    "try:\n    raise KeyError(1)\nexcept Exception as e:\n    K = type(e)\nclass E(K):\n    pass",
    "class E(type(GeneratorExit)):\n    pass",
    "class E(Exception, metaclass=type):\n    pass",
    # property and classmethod objects hand out nothing
    "class X:\n    @property\n    def p(self):\n        return 1\nprint(X.p.fget)",
    "class X:\n    @classmethod\n    def f(cls):\n        return 1\nprint(X.f.__func__)",
    "p = property(print)\nprint(p.fget)",
    "class X:\n    @classmethod\n    def f(cls):\n        return getattr(cls, '__dict__')\nprint(X.f())",
    # decorators are checked like the calls they are
    "@(lambda f: f.__globals__)\ndef g():\n    pass",
    "import torch\n@getattr(torch, '__dict__')\ndef g():\n    pass",
    "@print.__self__.open\ndef g():\n    pass",
    "def f():\n    x = 0\n    def g():\n        nonlocal _getattr_\n",
    "__name__ = 'x'",
    "global __name__",
    "print(__builtins__ if __name__ else 0)",
    # the collections containers: methods on instances only (their unbound methods write into any dict)
    "import torch\nimport collections\nsd = torch.nn.Linear(1, 1).state_dict()\ncollections.Counter.update(sd, {'weight': 1})\nprint(sd)",
    "import torch\nimport collections\nsd = torch.nn.Linear(1, 1).state_dict()\ncollections.defaultdict.update(sd, a=1)",
    "import torch\nfrom collections import defaultdict\nm = torch.nn.Linear(1, 1)\n"
    "defaultdict.__setitem__(m.state_dict(), 'x', 1)",
    "from collections import deque\nq = deque()\nprint(q.__reduce__())",
    "from collections import defaultdict\nd = defaultdict(list)\nd.default_factory = print",
]):
    case("learner_classes", f"learner_refused_{i:02d}", code, STOPPED if i in (11,) else REFUSED)
# no chosen hashes: a dict lookup in trusted code would hand the snippet's __eq__ the key its hash collides with
case("learner_classes", "chosen_hash", "class K:\n    def __hash__(self):\n        return hash('mean')\n"
     "    def __eq__(self, other):\n        print(other)\n        return False\nimport torch\n"
     "print(torch.nn.functional.mse_loss(torch.ones(1), torch.ones(1), reduction=K()))")
