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

#: name here -> (module, name there)
_EXPORTS: dict[str, tuple[str, str]] = {
    "Candidate": ("memvault.policy", "Candidate"),
    "ContractError": ("memvault.policy", "ContractError"),
    "GateContext": ("memvault.policy", "GateContext"),
    "evaluate": ("memvault.policy", "evaluate"),
    "evaluate_detailed": ("memvault.policy", "evaluate_detailed"),
    "normalize": ("memvault.policy", "normalize"),
    "load_contract": ("memvault.policy", "load_contract"),
    "GATE_MANIFEST": ("memvault.policy.learned", "GATE_MANIFEST"),
    "LearnedLayer": ("memvault.policy.learned", "LearnedLayer"),
    "default_layer": ("memvault.policy.learned", "default_layer"),
    "GATE_CORPUS_PATH": ("memvault.policy.training.compose", "CORPUS_PATH"),
    "refresh_gate_corpus": ("memvault.policy.training.compose", "refresh_corpus"),
    "WRITTEN_DIR": ("memvault.policy.training.train", "WRITTEN_DIR"),
    "train_gate": ("memvault.policy.training.train", "train_gate"),
    "READER_CORPUS_PATH": ("memvault.extract.training.generate", "CORPUS_PATH"),
    "train_reader": ("memvault.extract.training.train", "train_reader"),
    "make_embedder": ("memvault.embed", "make_embedder"),
    "PRESETS": ("memvault.retrieval.config", "PRESETS"),
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
