"""The model-card convention (STYLE principle 16): weights, manifest, card, side by side.

A shipped learned part is three files in one folder, named after it::

    <name>.npz      the weights (memvault.learn.weights: reproducible bytes)
    <name>.json     the manifest: sha256 of the .npz, the training command, the
                    corpus (path, sha256, item count), seed and config, labels,
                    thresholds, validation figures — written by the trainer
    <name>.md       the model card for people: intended use, training data,
                    evaluation on data it never saw, known failure modes

:func:`load_weights` reads the manifest, then the weights, verified against
the manifest's sha256. A test checks the shipped ``.npz`` against its manifest
and that the card exists.

>>> import tempfile, pathlib, numpy as np
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> m = write_weights(d, "demo", {"w": np.ones(2, dtype=np.float32)}, {"seed": 1})
>>> arrays, manifest = load_weights(d / "demo.json")
>>> arrays["w"].tolist(), manifest["seed"], manifest["sha256"] == m["sha256"]
([1.0, 1.0], 1, True)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memvault.learn.weights import WeightsError, load_npz, save_npz

__all__ = ["load_weights", "read_manifest", "write_weights"]


def write_weights(
    folder: str | Path,
    name: str,
    arrays: Mapping[str, npt.NDArray[np.generic]],
    manifest: Mapping[str, Any],
) -> dict[str, Any]:
    """Write ``<name>.npz`` and ``<name>.json`` (manifest + the file's sha256)."""
    out = Path(folder)
    digest = save_npz(out / f"{name}.npz", arrays)
    full = {"name": name, "weights": f"{name}.npz", "sha256": digest, **dict(manifest)}
    (out / f"{name}.json").write_text(
        json.dumps(full, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return full


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest at ``path``; WeightsError when missing or malformed."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise WeightsError(f"{p.name}: cannot read the manifest ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise WeightsError(f"{p.name}: the manifest is not JSON ({exc.msg})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("sha256"), str):
        raise WeightsError(f"{p.name}: the manifest records no sha256")
    if not isinstance(data.get("weights"), str):
        raise WeightsError(f"{p.name}: the manifest names no weights file")
    return data


def load_weights(
    manifest_path: str | Path,
) -> tuple[dict[str, npt.NDArray[np.generic]], dict[str, Any]]:
    """The arrays named by a manifest, verified against its sha256, and the manifest."""
    manifest = read_manifest(manifest_path)
    weights = Path(manifest_path).parent / Path(manifest["weights"]).name
    return load_npz(weights, manifest["sha256"]), manifest
