"""Moving a key of a ruamel mapping with its comments.

ruamel keeps the comment lines above a key with the value before it (the last scalar within
it), or, after a flow-style value, with the key itself. Reordering keys as they are would move
each comment with the wrong key; ``reorder`` splits each comment into the part on the value's
own line and the lines below it, and gives those lines to the key they precede.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap


def reorder(node: CommentedMap, order: list[str]) -> None:
    """``node``'s keys in ``order`` (unknown keys after, as written), each keeping its comments.

    ruamel keeps the comment lines above a key with the value before it; they are split off
    and given to the key they precede, so they move with it.
    """
    if getattr(node, "merge", None):
        return
    keys = list(node.keys())
    rank = {key: index for index, key in enumerate(order)}
    wanted = sorted(keys, key=lambda k: (rank.get(k, len(order)), keys.index(k)))
    if wanted == keys:
        return
    tails = [_tail(node, key) for key in keys]
    own: dict[Any, str] = {}
    before: dict[Any, str] = {key: _take_leading(node, key) for key in keys}
    after = ""
    for index, key in enumerate(keys):
        line, rest = _split(tails[index])
        own[key] = line
        if index + 1 < len(keys):
            before[keys[index + 1]] = rest + before[keys[index + 1]]
        else:
            after = rest
    # Lines above the first key live in the parent; any above a key that becomes first stay
    # with it, just below the first key's line.
    for key in wanted:
        node.move_to_end(key)
    for index, key in enumerate(wanted):
        following = wanted[index + 1] if index + 1 < len(wanted) else None
        lines = before.get(following, "") if following is not None else after
        if index == 0 and before.get(key):
            lines = before[key] + lines
        _set_tail(own[key], lines, tails[keys.index(key)])


def _take_leading(node: Any, key: Any) -> str:
    """The comment lines ruamel keeps above ``key`` itself (after a flow value), removed."""
    slots = node.ca.items.get(key)
    if not slots or len(slots) < 2 or not slots[1]:
        return ""
    text = "".join(_indented(token) for token in slots[1])
    slots[1] = None
    return text


def _indented(token: Any) -> str:
    """A pre-comment token's text with its indentation (ruamel keeps that in its mark)."""
    value = str(token.value)
    if not value.startswith("#"):
        return value
    return " " * int(token.start_mark.column) + value


def _tail(node: Any, key: Any) -> tuple[Any, Any]:
    """Where the comment token after the pair ``key`` lives: ruamel keeps it with the last
    scalar within the value (holder, key or index)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    value = node[key]
    if isinstance(value, CommentedMap | CommentedSeq) and value and not value.fa.flow_style():
        last = list(value.keys())[-1] if isinstance(value, CommentedMap) else len(value) - 1
        return _tail(value, last)
    return node, key


def _split(tail: tuple[Any, Any]) -> tuple[str, str]:
    """A tail token's text as (the comment on the value's own line, the lines after it)."""
    token = _token(tail)
    if token is None:
        return "", ""
    first, _, rest = token.value.partition("\n")
    return first, rest


def _token(tail: tuple[Any, Any]) -> Any:
    holder, key = tail
    slots = holder.ca.items.get(key)
    if not slots:
        return None
    position = 0 if _is_seq(holder) else 2
    return slots[position] if len(slots) > position else None


def _is_seq(holder: Any) -> bool:
    from ruamel.yaml.comments import CommentedSeq

    return isinstance(holder, CommentedSeq)


def _set_tail(line: str, lines: str, tail: tuple[Any, Any]) -> None:
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    holder, inner_key = tail
    position = 0 if _is_seq(holder) else 2
    old = _token(tail)
    slots = holder.ca.items.setdefault(inner_key, [None, None, None, None])
    if not line and not lines:
        slots[position] = None
        return
    mark = old.start_mark if old is not None else CommentMark(0)
    slots[position] = CommentToken(f"{line}\n{lines}", mark, None)
