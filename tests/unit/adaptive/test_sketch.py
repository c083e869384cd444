"""LatencySketch: quantiles within the stated relative error, in logarithmic memory."""

from __future__ import annotations

import math
import random

import pytest

from dsampler.adaptive._sketch import LatencySketch


def exact(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[math.floor(q * (len(ordered) - 1))]


@pytest.mark.parametrize("accuracy", [0.01, 0.02, 0.05])
def test_quantiles_are_within_the_relative_accuracy(accuracy: float) -> None:
    """Lognormal latencies (100,000): every reported quantile within +-accuracy of the
    exact one of the same rank."""
    rng = random.Random(3)
    values = [rng.lognormvariate(-3.0, 0.8) for _ in range(100_000)]
    sketch = LatencySketch(accuracy)
    sketch.add_all(values)
    for q in (0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0):
        got = sketch.quantile(q)
        assert got is not None
        assert abs(got / exact(values, q) - 1.0) <= accuracy
    assert sketch.relative_accuracy == pytest.approx(accuracy)


def test_memory_grows_with_the_value_range_not_the_count() -> None:
    """200,000 values over three decades need a few hundred buckets at 1%."""
    rng = random.Random(4)
    sketch = LatencySketch()
    for _ in range(200):
        sketch.add_all(10 ** rng.uniform(-3, 0) for _ in range(1000))
    assert sketch.count == 200_000
    assert len(sketch) <= math.ceil(3 * math.log(10) / math.log(1.01 / 0.99)) + 2


def test_add_and_add_all_agree_and_counts_repeat() -> None:
    """add(x, n) counts x n times; add_all counts each value once; both give one sketch."""
    one, many = LatencySketch(), LatencySketch()
    one.add(0.1, 3)
    one.add(0.2)
    many.add_all([0.1, 0.1, 0.1, 0.2])
    assert (one.count, one.quantile(0.5), one.quantile(1.0)) == (
        many.count,
        many.quantile(0.5),
        many.quantile(1.0),
    )


def test_out_of_range_values_are_clamped_and_nan_ignored() -> None:
    """Zero and negatives count as min_s, infinity as max_s, NaN not at all."""
    sketch = LatencySketch(min_s=1e-6, max_s=10.0)
    sketch.add_all([0.0, -1.0, math.inf, math.nan, 5.0])
    sketch.add(math.nan)
    assert sketch.count == 4
    assert sketch.quantile(0.0) == 1e-6
    assert sketch.quantile(1.0) == pytest.approx(10.0, rel=0.01)


def test_merge_is_the_sketch_of_the_union() -> None:
    """Merging two sketches gives the quantiles of all their values; copy is independent."""
    rng = random.Random(5)
    a_values = [rng.expovariate(10) for _ in range(5000)]
    b_values = [rng.expovariate(2) for _ in range(5000)]
    a, b, both = LatencySketch(), LatencySketch(), LatencySketch()
    a.add_all(a_values)
    b.add_all(b_values)
    both.add_all(a_values + b_values)
    twin = a.copy()
    a.merge(b)
    assert [a.quantile(q) for q in (0.1, 0.5, 0.99)] == [both.quantile(q) for q in (0.1, 0.5, 0.99)]
    assert twin.count == 5000
    a.clear()
    assert (a.count, a.quantile(0.5), len(a)) == (0, None, 0)


def test_merge_refuses_a_sketch_of_another_accuracy() -> None:
    """Buckets of different widths cannot be added."""
    with pytest.raises(ValueError, match="different accuracy"):
        LatencySketch(0.01).merge(LatencySketch(0.02))


@pytest.mark.parametrize("accuracy", [0.0, 1.0, -0.1, math.nan])
def test_accuracy_must_be_between_zero_and_one(accuracy: float) -> None:
    """An accuracy outside (0, 1) has no buckets."""
    with pytest.raises(ValueError, match="relative_accuracy"):
        LatencySketch(accuracy)
