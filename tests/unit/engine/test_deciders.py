"""Deciders share their results: one object per distinct set of tags in a snapshot."""

from __future__ import annotations

from dsampler.engine._deciders import OperationDecider, RatioDecider, Tagger
from dsampler.hashing._schemes import get_scheme


def test_results_with_the_same_tags_are_one_object() -> None:
    """Without Jaeger's tags every strategy of a snapshot returns the same results; with
    them, one object per (type, param), told apart by the param's type too."""
    scheme = get_scheme("fnv1a")
    plain = Tagger(extra={"dsampler.config_version": 3})
    a, b = RatioDecider("a", 0.5, scheme, plain), RatioDecider("b", 0.25, scheme, plain)
    assert a.results is b.results
    assert dict(a.results.sampled.attributes) == {"dsampler.config_version": 3}
    tagged = Tagger(jaeger=True)
    c, d, e = (
        RatioDecider(name, rate, scheme, tagged) for name, rate in (("c", 0.5), ("d", 0.5), ("e", 0.25))
    )
    assert c.results is d.results
    assert c.results is not e.results
    assert dict(e.results.sampled.attributes) == {"sampler.type": "probabilistic", "sampler.param": 0.25}
    lower = OperationDecider(c, None, 0.0, tagged)
    assert dict(lower.lower_results.sampled.attributes) == {
        "sampler.type": "lowerbound",
        "sampler.param": 0.5,
    }
    assert tagged.results("ratelimiting", 1) is not tagged.results("ratelimiting", 1.0)
