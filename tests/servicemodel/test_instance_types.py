"""The instance-type list is exactly what the installed botocore's loader says, read fast.

``training_instance_types`` reads the one ``TrainingInstanceType`` shape from the model file
botocore's ``Loader`` would load, and defers to that loader whenever the file alone might not
be the model. These tests hold the fast reader equal to botocore's loader on the installed
model and on model trees laid out in every way that matters (newer API versions, ``.json``
beside ``.json.gz``, a customer model in ``~/.aws/models``, an ``sdk-extras`` file). Nothing
is cached across processes, so no list can outlive the botocore it came from.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import TYPE_CHECKING

import botocore
import pytest
from botocore.loaders import Loader

from quotactl.servicemodel import instance_types
from quotactl.servicemodel.instance_types import (
    botocore_data_root,
    forget_instance_types,
    loader_instance_types,
    model_file,
    prefetch_instance_types,
    read_enum,
    training_instance_types,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from tests.conftest import CliResult

BOTOCORE_DATA = Path(botocore.__file__).parent / "data"


@pytest.fixture(autouse=True)
def _fresh_list() -> Iterator[None]:
    forget_instance_types()
    yield
    forget_instance_types()


def _model(enum: list[str], *, member: bool = False) -> dict[str, object]:
    """A service model shaped like botocore's (with ``member``, a structure member of the same
    name comes before the shape, as in botocore's own SageMaker model)."""
    shapes: dict[str, object] = {
        "ResourceConfig": {
            "type": "structure",
            "members": {"TrainingInstanceType": {"shape": "TrainingInstanceType"}},
        }
    }
    if not member:
        shapes = {}
    shapes["TrainingInstanceType"] = {"type": "string", "enum": enum}
    return {"version": "2.0", "metadata": {"apiVersion": "x"}, "operations": {}, "shapes": shapes}


def _write(root: Path, version: str, model: dict[str, object], *, gz: bool = False) -> Path:
    directory = root / "sagemaker" / version
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(model, indent=2).encode()
    path = directory / ("service-2.json.gz" if gz else "service-2.json")
    path.write_bytes(gzip.compress(text) if gz else text)
    return path


def _botocore_says(*roots: Path) -> frozenset[str]:
    loader = Loader(extra_search_paths=[str(r) for r in roots], include_default_search_paths=False)
    return frozenset(
        loader.load_service_model("sagemaker", "service-2")["shapes"]["TrainingInstanceType"][
            "enum"
        ]
    )


def test_the_installed_model_is_read_fast_and_equals_botocores_loader(tmp_path: Path) -> None:
    assert botocore_data_root() == BOTOCORE_DATA
    found = model_file(BOTOCORE_DATA, tmp_path / "no-models")
    assert found is not None  # the fast path is taken for the installed botocore
    fast = read_enum(found)
    assert fast is not None
    assert "ml.g5.xlarge" in fast
    assert fast == loader_instance_types(tmp_path / "no-models") == _botocore_says(BOTOCORE_DATA)


@pytest.mark.parametrize(
    "layout",
    [
        "one-gz",
        "newer-version-wins",
        "json-beside-gz",
        "version-dir-without-model",
        "member-before-shape",
    ],
)
def test_the_file_read_is_the_one_botocore_loads(tmp_path: Path, layout: str) -> None:
    root = tmp_path / "data"
    _write(root, "2017-07-24", _model(["ml.old.xlarge"]), gz=True)
    if layout == "newer-version-wins":
        _write(root, "2030-01-01", _model(["ml.new.xlarge"]), gz=True)
    if layout == "json-beside-gz":
        _write(root, "2017-07-24", _model(["ml.plain.xlarge"]))
    if layout == "version-dir-without-model":
        (root / "sagemaker" / "2099-01-01").mkdir()
        (root / "sagemaker" / "2099-01-01" / "paginators-1.json").write_text("{}")
    if layout == "member-before-shape":
        _write(root, "2017-07-24", _model(["ml.shape.xlarge"], member=True), gz=True)
    found = model_file(root, tmp_path / "no-models")
    assert found is not None
    assert read_enum(found) == _botocore_says(root)


def test_a_customer_model_or_an_extras_file_is_left_to_botocore(tmp_path: Path) -> None:
    root, customer = tmp_path / "data", tmp_path / "models"
    _write(root, "2017-07-24", _model(["ml.old.xlarge"]), gz=True)
    assert model_file(root, customer) is not None
    _write(customer, "2017-07-24", _model(["ml.mine.xlarge"]))
    assert model_file(root, customer) is None  # botocore's loader decides which wins
    assert loader_instance_types(customer) == _botocore_says(customer, BOTOCORE_DATA)
    extras = root / "sagemaker" / "2017-07-24" / "service-2.sdk-extras.json"
    extras.write_text("{}")
    assert model_file(root, tmp_path / "none") is None


@pytest.mark.parametrize(
    "text",
    [
        b"{}",
        b'{"shapes": {"TrainingInstanceType": {"type": "string"}}}',
        b'{"a": {"TrainingInstanceType": {"type": "string", "enum": ["x"]}},'
        b' "b": {"TrainingInstanceType": {"type": "string", "enum": ["y"]}}}',
        b'{"shapes": {"TrainingInstanceType": {"type": "string", "enum": [1]}}}',
        b"not json at all",
    ],
    ids=["absent", "no-enum", "twice", "not-strings", "garbage"],
)
def test_a_file_without_exactly_one_such_shape_is_not_guessed_at(
    tmp_path: Path, text: bytes
) -> None:
    path = tmp_path / "service-2.json"
    path.write_bytes(text)
    assert read_enum(path) is None
    broken = tmp_path / "service-2.json.gz"
    broken.write_bytes(b"not gzip")
    assert read_enum(broken) is None


def test_when_the_fast_read_fails_botocores_loader_answers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = tmp_path / "data"
    _write(root, "2017-07-24", {"shapes": {}})  # no such shape where botocore's data is
    monkeypatch.setattr(instance_types, "botocore_data_root", lambda: root)
    monkeypatch.setattr(instance_types, "customer_models_root", lambda: tmp_path / "none")
    assert training_instance_types() == _botocore_says(BOTOCORE_DATA)


def test_the_list_read_ahead_is_the_one_botocore_reads() -> None:
    prefetch_instance_types()
    prefetch_instance_types()  # a second start while the first reads: still one reader
    assert training_instance_types() == _botocore_says(BOTOCORE_DATA)


def test_a_read_ahead_that_fails_leaves_the_error_to_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The background read swallows nothing the caller would see: its own read raises."""

    def unreadable() -> Path:
        raise PermissionError("botocore's data cannot be listed")

    monkeypatch.setattr(instance_types, "botocore_data_root", unreadable)
    prefetch_instance_types()
    with pytest.raises(PermissionError, match="cannot be listed"):
        training_instance_types()


def test_validate_accepts_an_instance_type_from_a_model_in_aws_models(
    cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A model under ~/.aws/models overrides botocore's, for quotactl as for botocore."""
    config = tmp_path / "configs"
    config.mkdir()
    (config / "stack.yaml").write_text(
        "platform: {name: demo, region: us-east-1}\n"
        "environments:\n  - {name: env, capacity: {ml.future.xlarge: 4}}\n"
        "queues:\n  - {name: q, environment: env}\n"
    )
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    refused = cli("validate", str(config))
    assert refused.exit_code == 1
    assert "'ml.future.xlarge' is not a SageMaker training instance type" in refused.stderr

    installed = model_file(BOTOCORE_DATA, tmp_path / "none")
    assert installed is not None
    data = installed.read_bytes()
    model = json.loads(gzip.decompress(data) if installed.name.endswith(".gz") else data)
    model["shapes"]["TrainingInstanceType"]["enum"].append("ml.future.xlarge")
    models = tmp_path / "home" / ".aws" / "models"
    _write(models, installed.parent.name, model)
    forget_instance_types()
    accepted = cli("validate", str(config))
    assert accepted.exit_code == 0, accepted.stderr
    assert "valid" in accepted.stdout
