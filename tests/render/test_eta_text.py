"""The wording of an estimate: spans, ordinals, the sentence and the ETA column."""

from __future__ import annotations

import pytest

from quotactl.core.estimate import Basis, Eta
from quotactl.render.eta import eta_cell, eta_sentence, ordinal, span


@pytest.mark.parametrize(
    ("n", "word"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (102, "102nd"),
        (111, "111th"),
    ],
)
def test_ordinals(n: int, word: str) -> None:
    assert ordinal(n) == word


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.4, "0s"), (45, "45s"), (119, "119s"), (130, "2m"), (7800, "2h10m"), (18000, "5h")],
)
def test_spans(seconds: float, text: str) -> None:
    assert span(seconds) == text


def test_the_sentence_of_an_estimate_with_a_spread() -> None:
    eta = Eta(6000.0, 7800.0, 18000.0, 3, 7, Basis.HISTORY)
    assert eta_sentence(eta, 0.0, "nlp", "training") == (
        "expected to start in about 2h10m (p50), between 1h40m and 5h (p10\u2013p90); "
        "3rd in share nlp, 7th in queue training"
    )
    assert eta_cell(eta, 0.0) == "~2h10m"


def test_an_exact_estimate_says_when() -> None:
    eta = Eta(600.0, 600.0, 600.0, 1, 1, Basis.KNOWN)
    assert eta_sentence(eta, 0.0, "a", "q").startswith("expected to start in 10m (at 1970-")
    assert eta_cell(eta, 0.0) == "10m"


def test_a_job_that_never_starts_says_so() -> None:
    eta = Eta(None, None, None, 1, 1, Basis.KNOWN)
    assert eta_sentence(eta, 0.0, "a", "q").startswith("not expected to start")
    assert eta_cell(eta, 0.0) == "never"
    assert eta_cell(None, 0.0) == "\u2013"


def test_an_estimate_on_time_limits_is_said_to_be_an_upper_bound() -> None:
    eta = Eta(3600.0, 3600.0, 3600.0, 1, 1, Basis.TIME_LIMIT)
    assert eta_sentence(eta, 0.0, "a", "q").startswith("expected to start within about 1h (at")
    assert eta_cell(eta, 0.0) == "~1h"
