"""STS ``GetCallerIdentity`` over ``local serve``: the one STS call the aws backend makes
(its account guard), answered as the emulated account, in STS's query protocol (a form body
in, XML out). With ``AWS_ENDPOINT_URL_STS`` pointed at ``local serve`` as well as
``--endpoint-url``, ``--backend aws`` runs its production path against the emulator.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from quotactl.emulator.wire.rest_json import Response, request_id

_XMLNS = "https://sts.amazonaws.com/doc/2011-06-15/"
CALLER = "quotactl-local"
"""The emulated caller: an IAM user of the emulated account."""


def is_sts(method: str, path: str, body: bytes) -> bool:
    """Whether this request is an STS query-protocol call (``POST /`` with ``Action=``)."""
    return method == "POST" and path in ("", "/") and body.startswith(b"Action=")


def answer(body: bytes, account_id: str) -> Response:
    """GetCallerIdentity as the emulated account; any other STS action is refused."""
    form = parse_qs(body.decode("utf-8", "replace"))
    action = (form.get("Action") or [""])[0]
    rid = request_id()
    if action != "GetCallerIdentity":
        xml = (
            f'<ErrorResponse xmlns="{_XMLNS}"><Error><Type>Sender</Type>'
            f"<Code>InvalidAction</Code><Message>quotactl local serve answers STS "
            f"GetCallerIdentity only, not {action[:64]}</Message></Error>"
            f"<RequestId>{rid}</RequestId></ErrorResponse>"
        )
        return Response(400, xml.encode(), {"Content-Type": "text/xml", "x-amzn-RequestId": rid})
    xml = (
        f'<GetCallerIdentityResponse xmlns="{_XMLNS}"><GetCallerIdentityResult>'
        f"<Arn>arn:aws:iam::{account_id}:user/{CALLER}</Arn>"
        f"<UserId>AIDAQUOTACTLLOCAL0000</UserId><Account>{account_id}</Account>"
        f"</GetCallerIdentityResult><ResponseMetadata><RequestId>{rid}</RequestId>"
        f"</ResponseMetadata></GetCallerIdentityResponse>"
    )
    return Response(200, xml.encode(), {"Content-Type": "text/xml", "x-amzn-RequestId": rid})
