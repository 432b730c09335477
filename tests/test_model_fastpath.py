"""The model's fast paths give what the full checks give.

``NodeKind.check`` / ``RelType.check`` decide a plain scalar at once (``lineage.model.fast``)
and ``NodeKind.uid`` builds common uids without the per-part helpers; both must agree with the
reference rules (``lineage.model.types``) on every value, including the near misses (bools as integers, integers past
64 bits, NaN, str and int subclasses, empty and ``:``/``%``-holding parts).
"""

from __future__ import annotations

import enum
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from lineage.model import _BY_PREFIX, core, fast, kind_of_uid, types
from lineage.model.core import NodeKind, Role, escape_part
from lineage.model.types import INT64, ModelError


class _Text(str):
    pass


class _Number(enum.IntEnum):
    ONE = 1


scalars = st.one_of(
    st.text(max_size=8), st.integers(min_value=-(2**70), max_value=2**70), st.floats(),
    st.booleans(), st.none(), st.just(_Text("sub")), st.just(_Number.ONE),
    st.lists(st.one_of(st.integers(), st.text(max_size=3), st.booleans()), max_size=3),
    # lists of one plain type (check's list fast path), with the near misses in them
    st.lists(st.floats(), max_size=3), st.lists(st.sampled_from([1e308, -1e308, 0.5]), max_size=3),
    st.lists(st.integers(min_value=-(2**70), max_value=2**70), max_size=3),
    st.lists(st.text(max_size=3), max_size=3), st.lists(st.booleans(), max_size=3),
    st.lists(st.one_of(st.none(), st.floats(), st.just(_Text("s"))), max_size=3),
    st.tuples(st.text(max_size=3)),
)


def _reference_ok(value, type_name: str) -> bool:
    """The general rule: the value is of the type and storable."""
    return types.type_ok(value, type_name) and types.finite(value)


@settings(max_examples=3000, deadline=None)
@given(value=scalars, type_name=st.sampled_from(types.TYPES))
def test_scalar_fast_path_agrees_with_the_full_checks(value, type_name):
    decided = fast.scalar_ok(value, type_name)
    if type(value) in (str, int, float, bool):
        assert decided is not None
        assert decided == _reference_ok(value, type_name), (value, type_name)
    else:  # lists, tuples, None, subclasses: always the full checks
        assert decided is None


def _reference_uid(kind: NodeKind, *parts) -> str:
    """The uid as the rules in NodeKind.uid's docstring define it, built the slow way."""
    texts = [core._part_text(kind.label, n, v) for n, v in zip(kind.uid_parts, parts)]
    escaped = [escape_part(t) for t in texts[:-1]] + texts[-1:]
    while len(escaped) > 1 and escaped[-1] == "" and kind.uid_parts[len(escaped) - 1][-1] == "?":
        escaped.pop()
    return core.bounded_uid(":".join([kind.prefix, *escaped]))


KIND = NodeKind("Thing", Role.ENTITY, "test", uid_parts=("a", "b?", "c?"),
                props={"s": "string", "n": "integer", "f": "float", "l": "string[]",
                       "x": "any", "b": "boolean", "j": "json", "c": "scalar",
                       "fl": "float[]", "il": "integer[]", "bl": "boolean[]"})
parts = st.one_of(st.text(alphabet="ab:%", max_size=4), st.integers(), st.booleans(),
                  st.none(), st.just(_Text("s:t")), st.just(_Number.ONE), st.floats(),
                  st.just("x" * 1100))


@settings(max_examples=3000, deadline=None)
@given(a=parts, b=parts, c=parts)
def test_uid_fast_path_agrees_with_the_rules(a, b, c):
    try:
        expected = _reference_uid(KIND, a, b, c)
    except ModelError as exc:
        try:
            KIND.uid(a, b, c)
        except ModelError as got:
            assert str(got) == str(exc)
        else:
            raise AssertionError(f"uid({a!r}, {b!r}, {c!r}) should fail: {exc}")
        return
    assert KIND.uid(a, b, c) == expected


@settings(max_examples=2000, deadline=None)
@given(props=st.dictionaries(st.sampled_from(["s", "n", "f", "l", "x", "b", "j", "c", "fl", "il",
                                              "bl"]), scalars, max_size=5))
def test_check_keeps_exactly_what_the_rules_allow(props):
    ok = {k: v for k, v in props.items() if v is not None}
    normalised = {k: (list(v) if isinstance(v, tuple) else v) for k, v in ok.items()}
    normalised = {k: ([x for x in v if x is not None] if isinstance(v, list)
                      and KIND.props[k].endswith("[]") else v) for k, v in normalised.items()}
    bad = [k for k, v in normalised.items() if not _reference_ok(v, KIND.props[k])]
    if bad:
        try:
            KIND.check(props)
        except ModelError as exc:
            assert exc.prop in bad
        else:
            raise AssertionError(f"check({props!r}) should refuse {bad}")
    else:
        assert KIND.check(props) == normalised


@settings(max_examples=2000, deadline=None)
@given(props=st.dictionaries(st.sampled_from(["s", "n", "f", "l", "x", "b", "j", "c", "fl", "il",
                                              "bl", "undeclared"]), scalars, max_size=5))
def test_check_gives_what_its_reference_gives(props):
    """``NodeKind.check`` (model/fast.py) against ``check_reference`` (model/types.py)."""
    def outcome(check):
        try:
            return check(props)
        except ModelError as exc:
            return ("refused", exc.prop)

    fast_answer, reference = outcome(KIND.check), outcome(KIND.check_reference)
    if isinstance(reference, tuple):  # both refuse; the first bad property may differ
        assert isinstance(fast_answer, tuple), (props, fast_answer)
    else:
        assert fast_answer == reference


def test_the_near_misses_by_name():
    """The values a fast path most easily gets wrong, one by one."""
    assert KIND.check({"n": 2**63 - 1}) == {"n": 2**63 - 1}
    for props in ({"n": 2**63}, {"n": True}, {"f": math.nan}, {"f": math.inf},
                  {"s": 1}, {"n": 1.0}, {"f": "1.5"}):
        try:
            KIND.check(props)
        except ModelError:
            continue
        raise AssertionError(f"{props} was accepted")
    assert KIND.check({"f": 3}) == {"f": 3}          # an integer is a float value
    for props in ({"il": [1, 2**63]}, {"fl": [1.0, math.nan]}, {"fl": [math.inf]},
                  {"bl": [True, 1]}, {"l": ["a", 1]}):  # lists: the plain-list fast path's
        try:
            KIND.check(props)
        except ModelError:
            continue
        raise AssertionError(f"{props} was accepted")
    assert KIND.check({"fl": [1e308, 1e308], "il": [-(2**63), 2**63 - 1]}) == {
        "fl": [1e308, 1e308], "il": [-(2**63), 2**63 - 1]}  # the sum overflows: still finite
    states = ["a", "b"]
    assert KIND.check({"l": states})["l"] == states and KIND.check({"l": states})["l"] is not states
    assert KIND.check({"s": _Text("sub")}) == {"s": "sub"}
    assert KIND.uid("a:b", "", "") == "test:thing:a%3Ab"
    assert KIND.uid(0, "%", "c:d") == "test:thing:0:%25:c:d"
    assert INT64[1] == 2**63 - 1


REMEMBERING = fast.remembering_uid(KIND, size=4)  # small: entries are evicted often


@settings(max_examples=2000, deadline=None)
@given(calls=st.lists(st.tuples(parts, parts, parts), min_size=1, max_size=12),
       unhashable=st.booleans())
def test_remembered_uids_are_the_kinds_own(calls, unhashable):
    """A remembered uid is what ``kind.uid`` builds for those very parts: ``1`` and ``True``
    (equal as cache keys) never share an entry, refused parts stay refused, and a part that
    cannot be a cache key (a list) gets the kind's own error."""
    if unhashable:
        calls = calls + [(["a"], "b", "c")]
    for args in calls + calls[::-1]:
        try:
            expected = KIND.uid(*args)
        except ModelError as exc:
            try:
                REMEMBERING(*args)
            except ModelError as got:
                assert str(got) == str(exc)
            else:
                raise AssertionError(f"{args!r} should be refused: {exc}")
            continue
        assert REMEMBERING(*args) == expected


def test_one_and_true_never_share_a_remembered_uid():
    uid = fast.remembering_uid(KIND)
    assert uid("a", 1, "c") == "test:thing:a:1:c"
    try:
        uid("a", True, "c")
    except ModelError:
        return
    raise AssertionError("True was taken for the integer 1")


def test_long_parts_are_built_not_remembered():
    """A hostile input's huge ids must not stay in memory: 8,192 remembered megabyte parts
    would pin gigabytes (memory must stay flat in the input's size)."""
    uid = fast.remembering_uid(KIND, size=16)
    short, long_part = "a" * fast.REMEMBERED_PART_CHARS, "b" * (fast.REMEMBERED_PART_CHARS + 1)
    assert uid(short, "x", "y") == KIND.uid(short, "x", "y")
    assert uid.cache_info().currsize == 1
    for i in range(5):
        assert uid(long_part + str(i), "x", "y") == KIND.uid(long_part + str(i), "x", "y")
    assert uid.cache_info().currsize == 1


def _kind_of_uid_by_split(uid: str):
    """The uid-scheme rule as first written: split off two heads, try both, then one."""
    head = uid.split(":", 2)
    if len(head) >= 3:
        found = _BY_PREFIX.get(head[0] + ":" + head[1])
        if found is not None:
            return found
    return _BY_PREFIX.get(head[0])


@settings(max_examples=3000, deadline=None)
@given(head=st.sampled_from(sorted({p for k in _BY_PREFIX for p in (k, k.split(":")[0])})
                            + ["", "x"]),
       tail=st.text(alphabet="ab:", max_size=5))
def test_kind_of_uid_agrees_with_the_split_rule(head, tail):
    for uid in (head + tail, head + ":" + tail, tail):
        assert kind_of_uid(uid) is _kind_of_uid_by_split(uid), uid
