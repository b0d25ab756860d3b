"""Hypothesis strategies generated from botocore's input shapes.

``valid(shape)`` draws values the model accepts (required members always, optional ones
sometimes, enums, lengths and int32 ranges as the model states them), with realistic values
mixed in per member name (``pools``) so that requests also reach the handlers' success
paths. ``mutated(shape, value)`` breaks one place of a valid value at the wire level: a
missing required member, an unknown member, a wrong JSON type, a null, a number past int32,
a string or list past its ``max``, an enum value that is not one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from hypothesis import strategies as st

from quotactl.emulator.wire.shapes import problems

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from botocore.model import Shape

INT32 = (-(2**31), 2**31 - 1)
CHARACTERS = st.characters(exclude_categories=["Cs"])  # a lone surrogate is never valid
WRONG: dict[str, list[Any]] = {
    "string": [1, True, None, [], {}, 1.5],
    "integer": ["1", 1.5, True, None, [], {}],
    "long": ["1", 1.5, False, None, []],
    "float": ["0.5", True, None, []],
    "double": ["0.5", True, None, []],
    "boolean": [0, "true", None, []],
    "list": ["x", {}, 1, None],
    "map": ["x", [], 1, None],
    "structure": ["x", [], 1, None, True],
}
OUT_OF_RANGE = [2**31, -(2**31) - 1, 10**30]

Pools: TypeAlias = "Mapping[str, Sequence[Any]]"


def valid(shape: Shape, pools: Pools, member: str = "") -> st.SearchStrategy[Any]:
    """Values of ``shape`` the model accepts; ``member`` picks a pool of realistic values."""
    pool = [p for p in pools.get(member, ()) if not problems(p, shape)]
    if pool:  # realistic values twice as often as drawn ones
        return st.one_of(st.sampled_from(pool), st.sampled_from(pool), _drawn(shape, pools, member))
    return _drawn(shape, pools, member)


def _drawn(shape: Shape, pools: Pools, member: str) -> st.SearchStrategy[Any]:
    kind = shape.type_name
    meta = shape.metadata
    if kind == "structure":
        members: Mapping[str, Shape] = shape.members  # type: ignore[attr-defined]
        required = set(meta.get("required", []))
        # An optional member with realistic values is sent three times in four.
        pooled = {m for m in members if m not in required and m in pools}
        drawn = st.fixed_dictionaries(
            {
                **{m: valid(s, pools, m) for m, s in members.items() if m in required},
                **{
                    m: valid(s, pools, m) | st.just(ABSENT)
                    for m, s in members.items()
                    if m in pooled
                },
            },
            optional={
                m: valid(s, pools, m)
                for m, s in members.items()
                if m not in required and m not in pooled
            },
        )
        return drawn.map(_present)
    if kind == "list":
        item = valid(shape.member, pools, member)  # type: ignore[attr-defined]
        low = meta.get("min", 0)
        return st.lists(item, min_size=low, max_size=min(meta.get("max", 3), max(low, 3)))
    if kind == "map":
        low = meta.get("min", 0)
        return st.dictionaries(
            valid(shape.key, pools, member + ".key"),  # type: ignore[attr-defined]
            valid(shape.value, pools, member + ".value"),  # type: ignore[attr-defined]
            min_size=low,
            max_size=min(meta.get("max", 3), max(low, 3)),
        )
    return _scalar(shape)


ABSENT = object()


def _present(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if v is not ABSENT}


def _scalar(shape: Shape) -> st.SearchStrategy[Any]:
    kind, meta = shape.type_name, shape.metadata
    if kind == "string":
        if meta.get("enum"):
            return st.sampled_from(meta["enum"])
        low, high = meta.get("min", 0), meta.get("max", 40)
        return st.text(CHARACTERS, min_size=low, max_size=min(high, max(low, 40)))
    if kind in ("integer", "long"):
        low, high = meta.get("min", INT32[0]), meta.get("max", INT32[1])
        return st.one_of(st.integers(max(low, 0), min(high, 12)), st.integers(low, high))
    if kind in ("float", "double"):
        return st.one_of(
            st.floats(0.001, 100.0), st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)
        )
    if kind == "boolean":
        return st.booleans()
    return st.just(None)


def places(
    value: Any, shape: Shape, path: tuple[Any, ...] = ()
) -> list[tuple[tuple[Any, ...], Shape]]:
    """Every (path, shape) inside ``value``: where a mutation may go."""
    found = [(path, shape)]
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        members = shape.members  # type: ignore[attr-defined]
        for name, item in value.items():
            if name in members and not members[name].serialization.get("location"):
                found += places(item, members[name], (*path, name))
    elif kind == "list" and isinstance(value, list):
        for index, item in enumerate(value):
            found += places(item, shape.member, (*path, index))  # type: ignore[attr-defined]
    elif kind == "map" and isinstance(value, dict):
        for key, item in value.items():
            found += places(item, shape.value, (*path, key))  # type: ignore[attr-defined]
    return found


def mutations(shape: Shape) -> list[str]:
    """The ways a value of ``shape`` can be broken at the wire level."""
    kind, meta = shape.type_name, shape.metadata
    ways = ["wrong type"]
    if kind == "structure":
        ways.append("unknown member")
        if body_required(shape):
            ways.append("missing required")
    if kind in ("integer", "long"):
        ways.append("out of range")
    if kind == "string" and meta.get("enum"):
        ways.append("not in enum")
    if kind in ("string", "list", "map") and "max" in meta:
        ways.append("too long")
    return ways


def body_required(shape: Shape) -> list[str]:
    """Required members sent in the body (URI and query members are not mutated)."""
    members = shape.members  # type: ignore[attr-defined]
    return [
        name
        for name in shape.metadata.get("required", [])
        if not members[name].serialization.get("location")
    ]


def broken(value: Any, shape: Shape, way: str, pick: int) -> Any:
    """``value`` broken in ``way`` (``pick`` chooses among equivalent breakages)."""
    meta = shape.metadata
    if way == "wrong type":
        choices = WRONG[shape.type_name]
        return choices[pick % len(choices)]
    if way == "unknown member":
        return {**value, "zzNotAMember": pick}
    if way == "missing required":
        required = body_required(shape)
        return {k: v for k, v in value.items() if k != required[pick % len(required)]}
    if way == "out of range":
        return OUT_OF_RANGE[pick % len(OUT_OF_RANGE)]
    if way == "not in enum":
        lowered = str(value).lower()
        return lowered if lowered not in meta["enum"] else "NOT_A_VALUE"
    if shape.type_name == "string":
        return "x" * (meta["max"] + 1)
    if shape.type_name == "list":
        return [*value, *([value[0] if value else "x"] * (meta["max"] + 1))]
    return {**value, **{f"k{i}": "v" for i in range(meta["max"] + 1)}}


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the element at ``path`` replaced by ``new``."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        copy = list(value)
        copy[head] = replaced(value[head], rest, new)
        return copy
    return {**value, head: replaced(value[head], rest, new)}
