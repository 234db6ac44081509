"""Weight files: ``.npz`` written byte-for-byte reproducibly, verified by sha256 at load.

``numpy.savez`` stamps each member with the current time, so two identical
trainings would give different bytes; :func:`save_npz` writes the same archive
format (``numpy.load`` reads it) with fixed timestamps, sorted member names and
no compression, so equal arrays always give equal bytes and the file's sha256
identifies the weights.

:func:`load_npz` reads the file once, hashes exactly those bytes, refuses a
mismatch with :class:`WeightsError` and only then parses them — the bytes
checked are the bytes used (the convention of ``memvault.embed.minilm``).

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "w.npz"
>>> digest = save_npz(p, {"w": np.arange(3, dtype=np.float32)})
>>> load_npz(p, digest)["w"].tolist()
[0.0, 1.0, 2.0]
>>> load_npz(p, "0" * 64)
Traceback (most recent call last):
...
memvault.errors.WeightsError: w.npz: sha256 ... does not match the recorded 000000000000…
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memvault.errors import WeightsError

__all__ = ["WeightsError", "load_npz", "npz_bytes", "save_npz", "sha256_of"]

_EPOCH = (1980, 1, 1, 0, 0, 0)


def npz_bytes(arrays: Mapping[str, npt.NDArray[np.generic]]) -> bytes:
    """The reproducible ``.npz`` bytes of ``arrays`` (same arrays, same bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
            info.external_attr = 0o644 << 16
            member = io.BytesIO()
            np.lib.format.write_array(
                member, np.ascontiguousarray(arrays[name]), allow_pickle=False
            )
            zf.writestr(info, member.getvalue())
    return buf.getvalue()


def sha256_of(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def save_npz(path: str | Path, arrays: Mapping[str, npt.NDArray[np.generic]]) -> str:
    """Write ``arrays`` to ``path`` reproducibly; return the file's sha256."""
    data = npz_bytes(arrays)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(target)
    return sha256_of(data)


def load_npz(path: str | Path, sha256: str) -> dict[str, npt.NDArray[np.generic]]:
    """Read ``path``, check it against ``sha256``, return its arrays.

    Raises :class:`WeightsError` when the file is missing, unreadable, not the
    recorded one, or not a valid archive — never a bare ``OSError``.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise WeightsError(f"{p.name}: cannot read the weights ({exc.strerror or exc})") from exc
    digest = sha256_of(data)
    if digest != sha256:
        raise WeightsError(
            f"{p.name}: sha256 {digest[:12]}… does not match the recorded {sha256[:12]}…"
        )
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise WeightsError(f"{p.name}: not a valid weights archive ({exc})") from exc
