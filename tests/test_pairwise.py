"""The pairwise parameters the slow tests use instead of full products (helpers.pairwise)."""

import itertools

import pytest

from helpers import pairwise, pairwise_params

FACTOR_SETS = {
    "one": dict(a=[1, 2, 3]),
    "two": dict(a=[1, 2], b="xyz"),
    "warp-graph-config": dict(warp=[32, 64], graph=list("abcdefg"), config=list(range(10))),
    "four-of-three": {f: range(3) for f in "abcd"},
    "ten-binary": {f"f{i}": [False, True] for i in range(10)},
    "uneven": dict(a=range(5), b=range(1), c=range(4), d=range(2)),
}


def missing_pairs(factors, rows) -> set:
    """The pairs of values of two factors that no row holds."""
    missing = set()
    for x, y in itertools.combinations(factors, 2):
        held = {(row[x], row[y]) for row in rows}
        missing |= {(x, a, y, b) for a in factors[x] for b in factors[y]} - {
            (x, a, y, b) for a, b in held}
    return missing


@pytest.mark.parametrize("name", FACTOR_SETS)
def test_every_pair_is_covered_by_rows_of_the_product(name):
    factors = {k: list(v) for k, v in FACTOR_SETS[name].items()}
    rows = pairwise(factors)
    assert not missing_pairs(factors, rows)
    assert all(list(row) == list(factors) for row in rows)
    assert all(row[k] in factors[k] for row in rows for k in factors)
    # No row twice, and never more rows than the product.
    assert len({tuple(row.values()) for row in rows}) == len(rows)
    assert len(rows) <= len(list(itertools.product(*factors.values())))
    # Every row holds at least one pair no earlier row held (else it would be waste).
    for i, row in enumerate(rows):
        assert missing_pairs(factors, rows[:i]) - missing_pairs(factors, rows[:i + 1]) \
            or len(factors) < 2


def test_far_fewer_rows_than_the_product():
    # At least (largest factor) x (second largest) rows are needed.
    assert len(pairwise(FACTOR_SETS["warp-graph-config"])) == 70  # of 140
    assert len(pairwise(FACTOR_SETS["four-of-three"])) <= 15  # of 81
    assert len(pairwise(FACTOR_SETS["ten-binary"])) <= 12  # of 1024


def test_one_factor_gives_each_value_and_none_gives_one_row():
    assert pairwise(dict(a=[1, 2, 3])) == [dict(a=1), dict(a=2), dict(a=3)]
    assert pairwise({}) == [{}]
    assert pairwise(dict(a=[1, 2], b=[])) == []


def test_the_same_factors_give_the_same_rows():
    assert pairwise(FACTOR_SETS["uneven"]) == pairwise(dict(FACTOR_SETS["uneven"]))


def test_the_coverage_check_sees_a_dropped_row():
    """The check above can fail: without any one row, some pair is missing."""
    factors = FACTOR_SETS["four-of-three"]
    rows = pairwise(factors)
    for i in range(len(rows)):
        assert missing_pairs(factors, rows[:i] + rows[i + 1:])


def test_params_for_parametrize():
    names, params = pairwise_params(device=[32, 64], config=["a", "b"])
    assert names == "device,config"
    assert [p.values for p in params] == [(32, "a"), (32, "b"), (64, "a"), (64, "b")]
    assert [p.id for p in params] == ["warp32-a", "warp32-b", "warp64-a", "warp64-b"]
    _, params = pairwise_params(rows=[False, True])
    assert [p.id for p in params] == ["no-rows", "rows"]


def test_combinations_asked_for_together_appear_whole():
    factors = FACTOR_SETS["four-of-three"]
    together = [dict(a=2, b=2, c=2), dict(b=0, c=1, d=2)]
    rows = pairwise(factors, together)
    assert not missing_pairs(factors, rows)
    for want in together:
        assert any(all(row[k] == v for k, v in want.items()) for row in rows), want
    plain = pairwise(factors)
    assert not any(all(row[k] == 2 for k in "abc") for row in plain)  # not there by chance
