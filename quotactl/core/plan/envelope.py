"""A plan file's bytes, before their content is looked at: size, nesting and signature.

``parse`` refuses what is too large or nested too deep to be a plan quotactl wrote (before
``json.loads`` can spend memory or recursion on it); ``sign`` and ``check_signature`` are the
HMAC-SHA256 over the canonical JSON that ``QUOTACTL_PLAN_KEY`` asks for.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import TYPE_CHECKING

from quotactl.errors import PlanInvalidError, PlanSignatureError

if TYPE_CHECKING:
    from quotactl.core.resources.attributes import JSONValue

MAX_PLAN_BYTES = 64 * 1024 * 1024
"""A 1,000-share plan is about 2 MB; anything this large is not a plan quotactl wrote."""
MAX_DEPTH = 16
"""A plan nests 6 levels deep; deeper is refused before parsing (no RecursionError)."""
SIGNATURE_KEY = "signature"
SIGNATURE_PREFIX = "hmac-sha256:"


def invalid(message: str) -> PlanInvalidError:
    return PlanInvalidError(
        f"the plan file is not one quotactl wrote: {message}; nothing was changed",
        hint="write a new one with `quotactl plan --out FILE` and review it",
    )


# -- reading ----------------------------------------------------------------------------


def parse(data: bytes) -> JSONValue:
    """The JSON document in ``data``, refusing oversized or too deeply nested input."""
    if len(data) > MAX_PLAN_BYTES:
        raise invalid(f"it is {len(data)} bytes, more than {MAX_PLAN_BYTES}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise invalid(f"it is not UTF-8 ({exc.reason})") from exc
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise invalid(f"it nests {depth} levels deep, more than {MAX_DEPTH}")
    try:
        document: JSONValue = json.loads(text)
    except ValueError as exc:
        raise invalid(f"it is not JSON ({exc})") from exc
    return document


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def nesting_depth(text: str) -> int:
    """How deep ``[``/``{`` nest outside strings, in linear time and without recursion."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    depth = deepest = 0
    # One pass over bracket runs: count the openers in each run of openers at once.
    for run in re.finditer(r"[\[{]+|[\]}]+", brackets):
        size = run.end() - run.start()
        if run.group()[0] in "[{":
            depth += size
            deepest = max(deepest, depth)
        else:
            depth -= size
    return deepest


# -- signing ----------------------------------------------------------------------------


def canonical(document: dict[str, JSONValue]) -> bytes:
    """The bytes a signature covers: the document without its signature, keys sorted."""
    unsigned = {k: v for k, v in document.items() if k != SIGNATURE_KEY}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def sign(document: dict[str, JSONValue], key: str) -> dict[str, JSONValue]:
    """``document`` with its ``signature`` (HMAC-SHA256 of the canonical JSON under ``key``)."""
    digest = hmac.new(key.encode(), canonical(document), hashlib.sha256).hexdigest()
    return {**document, SIGNATURE_KEY: SIGNATURE_PREFIX + digest}


def check_signature(document: dict[str, JSONValue], key: str | None) -> None:
    """Refuse a missing or wrong signature when a key is set, and a signed plan without one."""
    signature = document.get(SIGNATURE_KEY)
    if key is None:
        if signature is not None:
            raise PlanSignatureError(
                "the plan file is signed but QUOTACTL_PLAN_KEY is not set, so its signature "
                "cannot be checked; nothing was changed",
                hint="set QUOTACTL_PLAN_KEY to the key `plan --out` signed it with",
            )
        return
    if not key:
        raise PlanSignatureError(
            "QUOTACTL_PLAN_KEY is set but empty; nothing was changed",
            hint="set it to the signing secret (an empty key would sign nothing)",
        )
    if signature is None:
        raise PlanSignatureError(
            "the plan file has no signature and QUOTACTL_PLAN_KEY is set; nothing was changed",
            hint="apply only plans written by `quotactl plan --out FILE` with the same key",
        )
    expected = sign(document, key)[SIGNATURE_KEY]
    if not isinstance(signature, str) or not hmac.compare_digest(signature, str(expected)):
        raise PlanSignatureError(
            "the plan file's signature does not match: it was edited after `plan --out`, or "
            "signed with another key; nothing was changed",
            hint="write a new plan with `quotactl plan --out FILE` and review it",
        )
