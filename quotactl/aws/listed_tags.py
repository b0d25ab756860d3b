"""The tags ListQuotaShares' items carry, which botocore's model of Batch leaves out.

AWS's API reference shows each ListQuotaShares item with its ``tags``; botocore's model of
``QuotaShareDetail`` has no such member, so its parser drops them. A plan of 1,000 shares
would then need 1,000 ListTagsForResource calls (21 s at the 50 calls a second AWS allows an
account) for what the listing already said. ``keep_listed_tags`` registers a ``before-parse``
handler on a client that reads the items' tags from the raw body of each ListQuotaShares page
and puts them back on the parsed items (``attach``). An item without a ``tags`` object (an
endpoint that answers as the model does) is left as it is, and callers fall back to
ListTagsForResource for it, so nothing is lost either way.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from botocore.client import BaseClient

OPERATION = "ListQuotaShares"
PAGE_KEY = "quotactl:listedTags"
"""Where a parsed ListQuotaShares page keeps the tags read from its raw body (by share ARN);
botocore merges a ``before-parse`` handler's ``customized_response_dict`` into the page."""


def keep_listed_tags(client: BaseClient) -> None:
    """Read the tags of every ListQuotaShares item ``client`` parses (see ``attach``)."""
    # one handler a client, however many readers wrap it
    client.meta.events.register(
        f"before-parse.batch.{OPERATION}", _read_tags, unique_id="quotactl-listed-tags"
    )


def attach(page: Mapping[str, Any], items: list[Any]) -> None:
    """Give each of ``page``'s ``items`` the tags its raw body carried, if it carried any."""
    found = page.get(PAGE_KEY)
    if not found:
        return
    for item in items:
        tags = found.get(item.get("quotaShareArn"))
        if tags is not None:
            item["tags"] = tags


def _read_tags(
    response_dict: Mapping[str, Any],
    customized_response_dict: dict[str, Any],
    **_: object,
) -> None:
    if response_dict.get("status_code") != 200:
        return
    try:
        body = json.loads(response_dict.get("body") or b"{}")
    except ValueError:
        return  # botocore's own parser reports a body it cannot read
    items = body.get("quotaShares") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return
    found: dict[str, dict[str, str]] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        arn, tags = item.get("quotaShareArn"), item.get("tags")
        if isinstance(arn, str) and isinstance(tags, dict) and _is_tag_map(tags):
            found[arn] = dict(tags)
    if found:
        customized_response_dict[PAGE_KEY] = found


def _is_tag_map(value: dict[Any, Any]) -> bool:
    """Tags as ListTagsForResource returns them: an object of strings (raw input, unchecked
    by botocore's parser, so anything else is ignored and the tags read the usual way)."""
    return all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
