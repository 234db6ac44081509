"""The façade's offline tools: what the CLI runs without an orchestrator's engine.

The gate judged on its own (``policy check`` / ``explain``: candidates, the
pure ``evaluate``, the learned layer), the training of the learned parts (the
gate's heads, the capture reader) and the embedder factory with the retrieval
presets. Edges import these from here, never from the domain modules (the
layering test holds them to it). Imported lazily (PEP 562): ``import
memvault.engine`` does not load training code.

>>> from memvault.engine import tools
>>> tools.evaluate.__module__
'memvault.policy.gate'
>>> sorted(tools.__all__)[:3]
['Candidate', 'ContractError', 'GATE_CORPUS_PATH']
"""

from __future__ import annotations

from memvault._lazy import lazy_getattr

#: name here -> the module that defines it (same name there), or (module, name there);
#: grouped by module, as ``memvault.write`` lists its lazy names.
_EXPORTS: dict[str, str | tuple[str, str]] = {
    **dict.fromkeys(
        (
            "Candidate",
            "ContractError",
            "GateContext",
            "evaluate",
            "evaluate_detailed",
            "normalize",
            "load_contract",
        ),
        "memvault.policy",
    ),
    **dict.fromkeys(("GATE_MANIFEST", "LearnedLayer", "default_layer"), "memvault.policy.learned"),
    **dict.fromkeys(("ID_FIELDS", "says_tool"), "memvault.policy.write_gate"),
    **dict.fromkeys(("REASON_FIELDS", "id_decision", "reason_fields"), "memvault.write.building"),
    "strongest": "memvault.write.gating",
    "prime_gate": ("memvault.policy.parallel", "primed"),
    "GATE_CORPUS_PATH": ("memvault.policy.training.compose", "CORPUS_PATH"),
    "refresh_gate_corpus": ("memvault.policy.training.compose", "refresh_corpus"),
    **dict.fromkeys(("WRITTEN_DIR", "train_gate"), "memvault.policy.training.train"),
    "READER_CORPUS_PATH": ("memvault.extract.training.generate", "CORPUS_PATH"),
    "train_reader": "memvault.extract.training.train",
    "make_embedder": "memvault.embed",
    "PRESETS": "memvault.retrieval.config",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
