"""The stdlib facades (copy, random, itertools, functools, time, typing): snippets using them print exactly what
they print under real PyTorch, and what the facades leave out or guard is refused with a clear message."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from server.policy import OutputLimitExceeded, PolicyError, compile_snippet, snippet_globals  # noqa: E402

torch = pytest.importorskip("torch")


def run(code: str, max_output_chars: int = 1_000_000) -> str:
    out: list[str] = []
    exec(compile_snippet(code), snippet_globals(engine, out.append, max_output_chars=max_output_chars))
    return "".join(out)


def run_plain(code: str) -> str:
    """The snippet as plain Python with real PyTorch."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<snippet>", "exec"), {"__name__": "__main__"})
    return buf.getvalue()


SNIPPETS = {
    "deepcopy_model_state_and_optimizer": """
import copy
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
best = copy.deepcopy(model.state_dict())
target = copy.deepcopy(model)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    model(torch.randn(5, 3)).pow(2).mean().backward()
    opt.step()
saved = copy.deepcopy(opt.state_dict())
print(sorted(saved['state'][0]), saved['param_groups'][0]['lr'], saved['state'][0]['step'])
print(torch.equal(target[0].weight, model[0].weight), torch.equal(best['0.weight'], target[0].weight))
model.load_state_dict(best)
print(torch.equal(best['0.weight'], model[0].weight), type(best).__name__, target)
""",
    "deepcopy_tensors": """
import copy
import torch
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
(w * 2).sum().backward()
c = copy.deepcopy(w)
print(c, c.grad, c.is_leaf, c.grad is w.grad)
try:
    copy.deepcopy(w * 2)
except RuntimeError as e:
    print(e)
p = torch.nn.Parameter(torch.ones(2))
(p * 3).sum().backward()
q = copy.deepcopy(p)
print(q, q.grad, type(q))
x = torch.arange(6.0)
a, b = copy.deepcopy([x, x[2:]])
b[0] = 100
print(a, x, copy.deepcopy(torch.ones(2, 3).t()).stride())
s = copy.copy(w * 2)
print(s, s.is_leaf, s.grad_fn, copy.copy(w) is w)
print(copy.deepcopy([torch.float32, torch.Size([2]), torch.device('cpu'), type(w), len]))
y = w * 2
for f in (copy.copy, copy.deepcopy):
    try:
        f(y.grad_fn)
    except TypeError as e:
        print(e)
""",
    "copy_plain_values": """
import copy
class Cfg:
    def __init__(self):
        self.lr = 0.1
        self.layers = [1, [2]]
c = Cfg()
d = copy.deepcopy(c)
e = copy.copy(c)
d.layers[1].append(3)
e.layers.append(4)
print(c.layers, d.layers, type(d).__name__, copy.copy({'a': [1]}), copy.deepcopy((1, 'x', None)))
try:
    copy.copy(copy)
except TypeError as err:
    print(err)
""",
    "random_functions": """
import random
random.seed(0)
print(random.random(), random.randint(1, 10), random.uniform(0, 1), random.gauss(0, 1), random.randrange(10))
xs = list(range(10))
random.shuffle(xs)
print(xs, random.choice(xs), random.sample(xs, 3), random.choices(xs, k=2), random.normalvariate(0, 1))
random.seed('text')
print(random.random(), random.getrandbits(8), random.triangular(0, 1))
""",
    "itertools_functools_time_typing": """
import itertools
import functools
import time
import torch
from itertools import product, chain
from functools import partial, reduce
from typing import List, Optional, Dict, Tuple, Any
grid = list(product([0.1, 0.01], [16, 32]))
print(grid, list(chain([1], [2, 3])), list(itertools.chain.from_iterable([[1], [2]])))
print(list(itertools.combinations(range(4), 2))[:3], list(itertools.islice(itertools.count(), 3)))
print([(k, list(g)) for k, g in itertools.groupby('aabbc')], list(itertools.accumulate([1, 2, 3])))
a = torch.nn.Linear(2, 2)
b = torch.nn.Linear(2, 1)
print(len(list(itertools.chain(a.parameters(), b.parameters()))))
add = partial(torch.add, alpha=2)
print(add(torch.ones(2), torch.ones(2)), reduce(lambda u, v: u * v, [1, 2, 3, 4]))
print(functools.reduce(torch.add, [torch.ones(1)] * 3), sorted([3, 1, 2], key=functools.cmp_to_key(lambda u, v: v - u)))
t0 = time.time()
p0 = time.perf_counter()
print(time.time() >= t0, time.perf_counter() >= p0)
def f(x: List[int], y: Optional[Dict[str, int]] = None) -> Tuple[int, Any]:
    return (sum(x), y)
print(f([1, 2]), List[int], Optional[int], type(chain()), type(partial(f)))
timers = {'t': time.perf_counter, 'r': functools.reduce}
print(timers['t']() > 0, timers['r'](lambda u, v: u + v, [1, 2]))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_prints_what_pytorch_prints(name):
    code = SNIPPETS[name]
    assert run(code) == run_plain(code)


def test_each_run_gets_its_own_generator():
    code = "import random\nrandom.seed(5)\nprint(random.random())\n"
    import random
    assert run(code) == run(code) == f"{random.Random(5).random()}\n"
    # a run's seed does not leak into the next one's generator
    first = run("import random\nrandom.seed(1)\nprint(random.random())")
    assert run("import random\nprint(random.random())") != first


@pytest.mark.parametrize("code,message", [
    ("import copy, torch\ncopy.deepcopy(torch.nn.Linear(1, 1), {})", "copy.deepcopy(x, memo) is not allowed"),
    ("import copy, torch\ncopy.deepcopy(torch.nn.Linear(1, 1), memo={})", "copy.deepcopy(x, memo) is not allowed"),
    ("import copy\nprint(copy.copy('{}'.format).func)", "'partial.func' is not allowed"),
    ("import random, torch\nrandom.shuffle(torch.nn.Linear(1, 1).state_dict())",
     "item assignment on 'OrderedDict' objects is not allowed"),
    ("import functools\nprint(functools.reduce(getattr, ['__class__', '__base__'], 1))",
     "names starting with '_' are not allowed"),
    ("import itertools\nprint(getattr(itertools.chain, 'mro'))", "'chain.mro' is not allowed"),
    ("import random\nfrom random import _inst", "names starting with '_' are not allowed"),
    ("import typing.io", "import of 'typing.io' is not allowed"),
])
def test_refused_with_a_clear_message(code, message):
    with pytest.raises(PolicyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(code)


@pytest.mark.parametrize("code", [
    "import random\nprint(random.getstate())",
    "import random\nprint(random.Random)",
    "import functools\nprint(functools.wraps)",
    "import functools\nprint(functools.update_wrapper)",
    "import functools\nprint(functools.lru_cache)",
    "import time\nprint(time.sleep)",
    "import typing\nprint(typing.NamedTuple)",
    "import copy\nprint(copy.dispatch_table)",
])
def test_left_out_names_do_not_exist(code):
    with pytest.raises(AttributeError, match="has no attribute"):
        run(code)


def test_copies_of_print_count_with_the_run():
    code = ("import copy\np = copy.deepcopy(print)\nq = copy.copy(print)\n"
            "for i in range(40):\n    p('x' * 10)\n    q('y' * 10)\n    print('z' * 10)\n")
    with pytest.raises(OutputLimitExceeded):
        run(code, max_output_chars=1000)


def test_copies_of_the_guards_are_the_guards():
    assert run("import copy\nprint(copy.deepcopy(type) is type, copy.copy(isinstance) is isinstance, "
               "copy.deepcopy(getattr) is getattr)") == "True True True\n"


def test_modules_and_nodes_cannot_be_copied():
    for code in ("import copy, torch\ncopy.deepcopy([torch.nn])", "import copy\ncopy.copy(copy)",
                 "import copy, torch\nx = torch.ones(1, requires_grad=True)\ncopy.deepcopy((x * 2).grad_fn)"):
        with pytest.raises(TypeError, match="cannot pickle"):
            run(code)
