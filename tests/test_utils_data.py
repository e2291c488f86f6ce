"""torch.utils.data on the engine against real PyTorch: datasets, samplers, collation and DataLoader give
the same batches (values, dtypes, shapes, order) and draw the same random numbers."""

from __future__ import annotations

import collections
import contextlib
import io
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import engine
import engine.utils.data
from server.tracer import trace_code

torch = pytest.importorskip("torch")
import torch.utils.data  # noqa: E402

SEEDS = [0, 1, 7, 42, 2024]
Point = collections.namedtuple("Point", ["x", "y"])


def plain(value: Any) -> Any:
    """A comparable picture of a result: tensors as (dtype, shape, values), containers by type and items."""
    if isinstance(value, (torch.Tensor, engine.Tensor)):
        return ("tensor", str(value.dtype), tuple(value.shape), value.tolist())
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, [(k, plain(v)) for k, v in value.items()])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return ("namedtuple", type(value).__name__, [plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    return value


def both(fn: Callable[[Any], Any]) -> tuple[Any, Any]:
    """fn run with torch and with the engine (each gets its own module), as comparable pictures."""
    return plain(fn(engine)), plain(fn(torch))


def same(fn: Callable[[Any], Any]) -> None:
    actual, expected = both(fn)
    assert actual == expected


def error_of(fn: Callable[[], Any]) -> tuple[str, str]:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type and message are what is compared
        return type(exc).__name__, str(exc)
    return ("no error", "")


def same_error(fn: Callable[[Any], Any]) -> None:
    expected = error_of(lambda: fn(torch))
    assert expected[0] != "no error"
    assert error_of(lambda: fn(engine)) == expected


def data(t: Any) -> tuple:
    """A small dataset of floats, ints and bools."""
    x = t.arange(30.0).reshape(10, 3) / 4
    return x, t.arange(10) * 10, t.arange(10) % 3 == 0


def after(t: Any) -> list:
    """What the default generator gives next: checks that both consumed the same draws."""
    return t.rand(3).tolist()


# --- datasets ---------------------------------------------------------------------------------
def test_tensor_dataset() -> None:
    def run(t: Any) -> Any:
        ds = t.utils.data.TensorDataset(*data(t))
        return [len(ds), ds[0], ds[9], ds[-1], ds[2:5], list(ds)[3]]

    same(run)
    same_error(lambda t: t.utils.data.TensorDataset(t.zeros(3), t.zeros(4)))


def test_subset_concat_stack() -> None:
    def run(t: Any) -> Any:
        D = t.utils.data
        a = D.TensorDataset(t.arange(4.0))
        b = D.TensorDataset(t.arange(10.0, 13.0))
        cat = D.ConcatDataset([a, b])
        added = a + b
        sub = D.Subset(cat, [6, 0, 4])
        stacked = D.StackDataset(a, t.arange(4) * 2)
        named = D.StackDataset(x=a, y=list("abcd"))
        return [len(cat), cat.cumulative_sizes, [cat[i] for i in range(7)], cat[-1], cat[-7],
                len(added), added[5], len(sub), list(sub), sub[1], D.Subset(b, [2, 0, 1])[[0, 2]],
                len(stacked), stacked[2], named[3]]

    same(run)
    same_error(lambda t: t.utils.data.ConcatDataset([]))
    same_error(lambda t: t.utils.data.ConcatDataset([t.utils.data.TensorDataset(t.zeros(2))])[-3])
    same_error(lambda t: t.utils.data.StackDataset(t.zeros(2), t.zeros(3)))
    same_error(lambda t: t.utils.data.StackDataset())
    same_error(lambda t: t.utils.data.Dataset()[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_random_split(seed: int) -> None:
    def run(t: Any) -> Any:
        D = t.utils.data
        out = []
        for n, lengths in [(10, [7, 3]), (11, [0.3, 0.3, 0.4]), (7, [0.5, 0.5]), (5, [1, 4]), (13, [0.2] * 5),
                           (4, [0.1, 0.9]), (1, [1, 0])]:
            parts = D.random_split(range(n), lengths, generator=t.Generator().manual_seed(seed))
            out.append([[len(p), list(p), p.indices] for p in parts])
        t.manual_seed(seed)
        parts = D.random_split(D.TensorDataset(t.arange(8.0)), [5, 3])  # the default generator
        out.append([[p.indices, p[0]] for p in parts])
        out.append(after(t))
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a split of length 0 warns
        same(run)


def test_random_split_errors_and_warning() -> None:
    same_error(lambda t: t.utils.data.random_split(range(10), [3, 3]))
    same_error(lambda t: t.utils.data.random_split(range(10), [1.5, -0.5]))

    def warned(t: Any) -> list:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.utils.data.random_split(range(2), [0.1, 0.9])
        return [str(w.message) for w in caught]

    same(warned)


# --- samplers ---------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_random_sampler(seed: int) -> None:
    def run(t: Any) -> Any:
        D = t.utils.data
        out = []
        for kwargs in [{}, {"replacement": True}, {"replacement": True, "num_samples": 70},
                       {"replacement": True, "num_samples": 64}, {"num_samples": 25}, {"num_samples": 3}]:
            g = t.Generator().manual_seed(seed)
            sampler = D.RandomSampler(range(10), generator=g, **kwargs)
            out.append([len(sampler), list(sampler), list(sampler)])
        t.manual_seed(seed)  # no generator: a fresh one seeded from the default generator per pass
        sampler = D.RandomSampler(range(12))
        drawn = D.RandomSampler(range(5), replacement=True, num_samples=40)
        out.append([list(sampler), list(sampler), list(drawn)])
        out.append(after(t))
        return out

    same(run)


@pytest.mark.parametrize("seed", SEEDS)
def test_randint_with_high_keyword(seed: int) -> None:
    """torch.randint(high=n, size=...), the call RandomSampler makes with replacement."""
    def run(t: Any) -> Any:
        g = t.Generator().manual_seed(seed)
        return [t.randint(high=10, size=(40,), dtype=t.int64, generator=g),
                t.randint(high=3, size=(0,), generator=g), t.randint(high=2**40, size=(3,), generator=g)]

    same(run)


def test_sampler_errors() -> None:
    same_error(lambda t: t.utils.data.RandomSampler(range(3), num_samples=0))
    same_error(lambda t: t.utils.data.RandomSampler([]))
    same_error(lambda t: t.utils.data.RandomSampler(range(3), replacement=1))
    same_error(lambda t: t.utils.data.BatchSampler(range(3), 0, False))
    same_error(lambda t: t.utils.data.BatchSampler(range(3), 2, None))
    same_error(lambda t: t.utils.data.WeightedRandomSampler([1.0, 2.0], 0))
    same_error(lambda t: iter(t.utils.data.Sampler()).__next__())


@pytest.mark.parametrize("seed", SEEDS)
def test_other_samplers(seed: int) -> None:
    def run(t: Any) -> Any:
        D = t.utils.data
        g = t.Generator().manual_seed(seed)
        weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
        return [list(D.SequentialSampler(range(4))), len(D.SequentialSampler(range(4))),
                list(D.SubsetRandomSampler([5, 9, 11, 2], generator=g)),
                list(D.WeightedRandomSampler(weights, 10, generator=g)),
                list(D.WeightedRandomSampler(weights, 4, replacement=False, generator=g)),
                len(D.WeightedRandomSampler(weights, 4))]

    same(run)


def test_batch_sampler() -> None:
    def run(t: Any) -> Any:
        D = t.utils.data
        out = []
        for n, size, drop in [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False), (2, 5, True),
                              (0, 2, False)]:
            sampler = D.BatchSampler(D.SequentialSampler(range(n)), size, drop)
            out.append([list(sampler), len(sampler)])
        return out

    same(run)


# --- collation --------------------------------------------------------------------------------
def test_default_collate() -> None:
    def run(t: Any) -> Any:
        collate = t.utils.data.default_collate
        return [
            collate([1.5, 2.0, -3.25]), collate([1, 2, 3]), collate([True, False]), collate([1, 2.5]),
            collate(["a", "bc"]), collate([b"x", b"y"]),
            collate([t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0])]), collate([t.tensor(1), t.tensor(2)]),
            collate([(1, 2.0, "a"), (3, 4.0, "b")]), collate([[1, 2], [3, 4]]),
            collate([{"x": 1.0, "y": t.ones(2)}, {"x": 2.0, "y": t.zeros(2)}]),
            collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)]),
            collate([Point(1, 2.0), Point(3, 4.0)]),
            collate([np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)]),
            collate([np.float32(1.5), np.float32(2.0)]), collate([np.int64(3), np.int64(4)]),
            collate([np.float64(0.5)]),
            collate([([1, 2], {"k": (3.0,)}), ([4, 5], {"k": (6.0,)})]),
        ]

    same(run)
    same_error(lambda t: t.utils.data.default_collate([None, None]))
    same_error(lambda t: t.utils.data.default_collate([[1, 2], [3]]))
    same_error(lambda t: t.utils.data.default_collate([t.zeros(2), t.zeros(3)]))
    same_error(lambda t: t.utils.data.default_collate([np.array(["a"]), np.array(["b"])]))


@pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy.ndarrays")
def test_tensor_from_numpy_scalars() -> None:
    """default_collate makes a tensor of a list of NumPy scalars: each keeps its dtype, promoted as torch
    does."""
    def run(t: Any) -> Any:
        lists = [[np.float64(0.5)], [np.float64(0.5), 1.0], [np.int32(1)], [np.int32(1), np.int64(2)],
                 [np.float16(1)], [np.float32(1), np.float64(2)], [np.bool_(True)], [np.uint8(3)],
                 [np.int8(1), 2],
                 [[np.float64(1)]], [np.int64(1), 2.5], [np.int32(1), True], [np.float16(1), np.int64(2)],
                 [np.uint8(1), np.int8(-2)], [np.array([1, 2], np.int32)], [t.tensor(1.0, dtype=t.float64)],
                 [t.tensor(1, dtype=t.int32), 2], [1, 2.5], [True, 2]]
        return [t.tensor(v) for v in lists]

    same(run)


def test_default_convert() -> None:
    def run(t: Any) -> Any:
        convert = t.utils.data.default_convert
        return [convert(3), convert(np.array([1, 2])), convert((np.float32(1.0), "s")),
                convert({"a": np.zeros(2)}), convert([np.ones(1), 2]), convert(Point(np.array(0), 1)),
                convert(t.ones(2)), convert(np.array(["x"]))]

    same(run)


# --- DataLoader -------------------------------------------------------------------------------
@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (3, False), (3, True), (4, False), (10, False),
                                                  (12, True), (12, False)])
def test_loader_in_order(batch_size: int, drop_last: bool) -> None:
    def run(t: Any) -> Any:
        loader = t.utils.data.DataLoader(t.utils.data.TensorDataset(*data(t)), batch_size=batch_size,
                                         drop_last=drop_last)
        return [len(loader), list(loader), list(loader)]

    same(run)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("batch_size,drop_last", [(4, False), (4, True), (1, False), (None, False)])
def test_loader_shuffle(seed: int, batch_size: int | None, drop_last: bool) -> None:
    def run(t: Any) -> Any:
        t.manual_seed(seed)
        loader = t.utils.data.DataLoader(t.utils.data.TensorDataset(*data(t)), batch_size=batch_size,
                                         shuffle=True, drop_last=drop_last)
        epochs = [list(loader) for _ in range(3)]  # each pass reshuffles
        return [len(loader), epochs, after(t)]

    same(run)


@pytest.mark.parametrize("seed", SEEDS)
def test_loader_generator_and_samplers(seed: int) -> None:
    def run(t: Any) -> Any:
        D = t.utils.data
        ds = D.TensorDataset(*data(t))
        t.manual_seed(seed + 1)
        out = []
        g = t.Generator().manual_seed(seed)
        out.append([list(D.DataLoader(ds, batch_size=3, shuffle=True, generator=g)) for _ in range(2)])
        g = t.Generator().manual_seed(seed)  # a generator without shuffle still gives the workers' seed draw
        out.append(list(D.DataLoader(ds, batch_size=4, generator=g)))
        out.append(t.randperm(5, generator=g).tolist())
        g = t.Generator().manual_seed(seed)
        sampler = D.RandomSampler(ds, replacement=True, num_samples=7, generator=g)
        out.append(list(D.DataLoader(ds, batch_size=2, sampler=sampler)))
        batches = D.BatchSampler(D.RandomSampler(ds), 4, True)
        loader = D.DataLoader(ds, batch_sampler=batches)
        out.append([len(loader), list(loader)])
        out.append(list(D.DataLoader(ds, batch_sampler=[[3, 1], [0]])))
        out.append(list(D.DataLoader(ds, batch_size=3, collate_fn=lambda batch: [len(batch), batch[0][1]])))
        out.append(list(D.DataLoader(ds, batch_size=None, sampler=[4, 2])))
        it = iter(D.DataLoader(ds, batch_size=4, shuffle=True))
        out.append([len(it), next(it), after(t), next(it)])
        out.append(after(t))
        return out

    same(run)


def test_loader_over_python_data() -> None:
    def run(t: Any) -> Any:
        D = t.utils.data
        samples = [{"x": [float(i), i * 0.5], "label": i % 2, "name": f"s{i}"} for i in range(5)]
        pairs = [(np.full(2, i, np.float32), i) for i in range(5)]
        t.manual_seed(3)
        return [list(D.DataLoader(samples, batch_size=2)),
                list(D.DataLoader(pairs, batch_size=3, shuffle=True)),
                list(D.DataLoader(range(5), batch_size=2)), list(D.DataLoader([1.0, 2.0], batch_size=None)),
                list(D.DataLoader(D.random_split(range(9), [6, 3], generator=t.Generator().manual_seed(0))[0],
                                  batch_size=4))]

    same(run)


def _iterable_dataset(t: Any, n: int) -> Any:
    class Stream(t.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(n))

        def __len__(self) -> int:
            return n

    return Stream()


def test_loader_iterable_dataset() -> None:
    def run(t: Any) -> Any:
        D = t.utils.data
        out = []
        for kwargs in [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}]:
            loader = D.DataLoader(_iterable_dataset(t, 7), **kwargs)
            out.append([len(loader), list(loader)])
        chained = _iterable_dataset(t, 2) + _iterable_dataset(t, 3)
        out.append([len(chained), list(chained), list(D.DataLoader(chained, batch_size=4))])
        return out

    same(run)
    same_error(lambda t: t.utils.data.DataLoader(_iterable_dataset(t, 3), shuffle=True))
    same_error(lambda t: t.utils.data.DataLoader(_iterable_dataset(t, 3), sampler=[0, 1]))
    same_error(lambda t: t.utils.data.ConcatDataset([_iterable_dataset(t, 3)]))


def test_loader_errors() -> None:
    ds = lambda t: t.utils.data.TensorDataset(t.zeros(4))  # noqa: E731
    DL = lambda t: t.utils.data.DataLoader  # noqa: E731
    same_error(lambda t: DL(t)(ds(t), sampler=[0, 1], shuffle=True))
    same_error(lambda t: DL(t)(ds(t), batch_sampler=[[0]], batch_size=2))
    same_error(lambda t: DL(t)(ds(t), batch_sampler=[[0]], drop_last=True))
    same_error(lambda t: DL(t)(ds(t), batch_size=None, drop_last=True))
    same_error(lambda t: DL(t)(ds(t), batch_size=0))
    same_error(lambda t: DL(t)(ds(t), num_workers=-1))
    same_error(lambda t: DL(t)(ds(t), timeout=-1))
    same_error(lambda t: DL(t)(ds(t), prefetch_factor=2))
    same_error(lambda t: DL(t)(ds(t), persistent_workers=True))
    same_error(lambda t: setattr(DL(t)(ds(t)), "batch_size", 3))
    same_error(lambda t: next(iter(DL(t)(ds(t), timeout=1))))
    same_error(lambda t: list(DL(t)([None, None], batch_size=2)))


def test_workers_load_in_process() -> None:
    """num_workers > 0: the same batches as with torch's workers (loaded here, in order)."""
    def run(t: Any, workers: int) -> Any:
        t.manual_seed(5)
        loader = t.utils.data.DataLoader(t.utils.data.TensorDataset(*data(t)), batch_size=4, shuffle=True,
                                         num_workers=workers)
        return [len(loader), list(loader), after(t)]

    assert plain(run(engine, 2)) == plain(run(torch, 0))
    with pytest.raises(NotImplementedError):
        engine.utils.data.DataLoader(_iterable_dataset(engine, 3), num_workers=2)


def test_exports() -> None:
    assert engine.utils.data.get_worker_info() is None
    missing = [n for n in engine.utils.data.__all__ if not hasattr(torch.utils.data, n)]
    assert missing == []


# --- through the tracer and the sandbox policy ---------------------------------------------------
TRAINING = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split
import torch.utils.data

torch.manual_seed(0)
X = torch.randn(24, 3)
y = (X @ torch.tensor([1.0, -2.0, 0.5]) > 0).long()
train, val = random_split(TensorDataset(X, y), [0.75, 0.25])
print(len(train), len(val), val.indices)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
loader = DataLoader(train, batch_size=5, shuffle=True)
print(len(loader), type(loader).__name__)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, round(total, 4), yb.tolist())
with torch.no_grad():
    for xb, yb in torch.utils.data.DataLoader(val, batch_size=4):
        print(xb.shape, yb.dtype, (model(xb).argmax(1) == yb).sum().item())
g = torch.Generator().manual_seed(1)
sampler = torch.utils.data.RandomSampler(range(9), replacement=True, generator=g)
print([i for i in sampler], [b for b in torch.utils.data.BatchSampler(range(5), 2, True)])
"""


def test_training_loop_traces_like_torch() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(TRAINING, "<torch>", "exec"), {"__name__": "__main__"})
    trace = trace_code(TRAINING, restricted=True)
    assert trace["status"] == "ok", trace.get("error")
    assert trace["stdout"] == out.getvalue()
    # The loader's own indexing and stacking are not traced step by step: nothing happens on the `for` lines,
    # a batch first appears where the loop body uses it.
    loops = {i for i, line in enumerate(TRAINING.splitlines(), 1) if line.strip().startswith("for xb, yb in")}
    assert len(loops) == 2
    assert [e for e in trace["events"] if e.get("line") in loops] == []
    loss_line = min(loops) + 2
    assert any(e["kind"] == "op" and e.get("line") == loss_line for e in trace["events"])
