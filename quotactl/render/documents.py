"""Views of documents printed as they are: the IAM policy quotactl needs."""

from __future__ import annotations

from quotactl.core.iam import PolicyDocument
from quotactl.core.outputs import Output
from quotactl.render.views import Screen, view


@view(PolicyDocument, Output.TEXT, Output.JSON)
def show_policy(policy: PolicyDocument, screen: Screen) -> None:
    """The policy document, whatever the output: IAM reads it as it is."""
    screen.write_json(policy.document)
