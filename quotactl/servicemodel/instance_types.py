"""The SageMaker training instance types, from botocore's SageMaker service model.

The list changes with every AWS launch, so it is read from the installed botocore (the
``TrainingInstanceType`` enum of ``sagemaker/<version>/service-2.json``) instead of being kept
by hand: upgrading boto3 is how quotactl learns a new instance type. The one list serves
``config`` (capacities, job specs) and the emulator (capacity units it accepts).

Loading that model through ``botocore.loaders`` costs about 0.15 s (importing botocore's HTTP
stack, then decoding a 2.6 MB document), a third of ``validate``'s time. So the file
botocore's ``Loader()`` would read is located the way it locates it (the newest API version
directory holding a ``service-2`` file, ``.json`` before ``.json.gz``) and only the one shape
is decoded, in about 10 ms, in a thread of its own while the config is parsed
(``prefetch_instance_types``). Whenever the file is not certain to be the only input (a model
under ``~/.aws/models/sagemaker``, an ``sdk-extras`` file beside it) or the shape cannot be
found exactly once, botocore's own loader reads it instead. Nothing is cached across runs, so
the list is always the installed botocore's (docs/configuration.md, "Instance types").
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import os
import re
import threading
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

SERVICE = "sagemaker"
TYPE_NAME = "service-2"
SHAPE = "TrainingInstanceType"
EXTENSIONS = (".json", ".json.gz")
"""The file forms botocore's JSON loader tries, in its order."""
_SHAPE_KEY = b'"TrainingInstanceType"'
_SHAPE_START = re.compile(rb'"TrainingInstanceType"\s*:\s*\{')


_prefetch_lock = threading.Lock()
_prefetching: threading.Thread | None = None


def prefetch_instance_types() -> None:
    """Start reading the list in a background thread, unless it is read or being read.

    Most of the reading is inflating the gzipped model, which releases the GIL: started before
    a config is parsed, the list is ready when capacities are checked, and ``validate`` does
    not wait for it on a machine with a second core.
    """
    global _prefetching
    with _prefetch_lock:
        if read_instance_types.cache_info().currsize or (
            _prefetching is not None and _prefetching.is_alive()
        ):
            return
        _prefetching = threading.Thread(
            target=_read_quietly, name="quotactl-instance-types", daemon=True
        )
        _prefetching.start()


def _read_quietly() -> None:
    with contextlib.suppress(Exception):  # the caller's own read raises it again, in its thread
        read_instance_types()


def training_instance_types() -> frozenset[str]:
    """Every instance type CreateTrainingJob accepts; read once per process."""
    reader = _prefetching
    if reader is not None:
        reader.join()  # the list is being read already: wait for it rather than read it twice
    return read_instance_types()


def forget_instance_types() -> None:
    """Read the list afresh when it is next asked for (after a test changes the model)."""
    reader = _prefetching
    if reader is not None:
        reader.join()  # or a read begun before would fill the cache again afterwards
    read_instance_types.cache_clear()


@functools.cache
def read_instance_types() -> frozenset[str]:
    """The list, read now (``training_instance_types`` is the one to call)."""
    root, customer = botocore_data_root(), customer_models_root()
    model = None if root is None else model_file(root, customer)
    found = None if model is None else read_enum(model)
    return found if found is not None else loader_instance_types(customer)


def loader_instance_types(customer_root: Path | None = None) -> frozenset[str]:
    """The list through botocore's own loader (the slow, always-right way), searching what
    ``Loader()`` searches: ``customer_root`` (default ``~/.aws/models``), then botocore's data."""
    from botocore.loaders import Loader

    paths = [str(customer_root or customer_models_root()), Loader.BUILTIN_DATA_PATH]
    loader = Loader(extra_search_paths=paths, include_default_search_paths=False)
    model = loader.load_service_model(SERVICE, TYPE_NAME)
    return frozenset(model["shapes"][SHAPE]["enum"])


def botocore_data_root() -> Path | None:
    """botocore's bundled ``data`` directory, found without importing botocore."""
    spec = find_spec("botocore")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) / "data" if locations else None


def customer_models_root() -> Path:
    """``~/.aws/models``: botocore's ``Loader`` searches it before its own data."""
    return Path(os.path.expanduser("~")) / ".aws" / "models"


def model_file(data_root: Path, customer_root: Path) -> Path | None:
    """The file ``Loader().load_service_model("sagemaker", "service-2")`` reads, when that
    file alone makes the model; None when botocore's loader has to decide."""
    if (customer_root / SERVICE).is_dir():
        return None  # a user-supplied model may override or extend botocore's
    service_dir = data_root / SERVICE
    try:
        versions = [
            entry.name
            for entry in service_dir.iterdir()
            if any((entry / (TYPE_NAME + ext)).is_file() for ext in EXTENSIONS)
        ]
    except OSError:
        return None
    if not versions:
        return None
    latest = service_dir / max(versions)
    if any((latest / f"{TYPE_NAME}.sdk-extras{ext}").exists() for ext in EXTENSIONS):
        return None  # botocore merges extras into the model
    return next(
        latest / (TYPE_NAME + ext) for ext in EXTENSIONS if (latest / (TYPE_NAME + ext)).is_file()
    )


def _shape_starts(data: bytes) -> Iterator[re.Match[bytes]]:
    """Each ``"TrainingInstanceType": {`` in ``data``: the name found by ``bytes.find``, some
    ten times faster than the pattern's own search over a 2.6 MB document."""
    at = data.find(_SHAPE_KEY)
    while at >= 0:
        if match := _SHAPE_START.match(data, at):
            yield match
        at = data.find(_SHAPE_KEY, at + 1)


def read_enum(path: Path) -> frozenset[str] | None:
    """The ``TrainingInstanceType`` shape's enum in one model file, or None unless the file
    holds exactly one such shape (a string with an enum)."""
    try:
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    found: list[frozenset[str]] = []
    decoder = json.JSONDecoder()
    for match in _shape_starts(data):
        start = match.end() - 1
        end = data.find(b"}", start)  # a shape's enum holds no braces: its object ends here
        if end < 0:
            return None
        try:
            shape, _ = decoder.raw_decode(data[start : end + 1].decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue  # a structure's member of that name: nested braces, not the shape
        if not isinstance(shape, dict):
            continue
        enum = shape.get("enum")
        if shape.get("type") == "string" and isinstance(enum, list) and enum:
            if not all(isinstance(value, str) for value in enum):
                return None
            found.append(frozenset(enum))
    return found[0] if len(found) == 1 else None
