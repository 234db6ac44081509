"""How the LangGraph adapter judges and writes a batch's puts: :class:`ItemWrites`.

A put's memory is its value's envelope (:mod:`memvault.integrations.langgraph_items`);
every put of a batch is judged before any op of it is written, and the batch's new
items are embedded in one call. :class:`~memvault.integrations.langgraph_store.MemvaultStore`
is the store these methods belong to; they read it through the few members declared
below (its engine, its caller's façade, its scope, and how it finds an item).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langgraph.store.base import Op, PutOp

from memvault.engine import NewMemory, WriteResult
from memvault.errors import WriteRefusedError
from memvault.integrations.langgraph_items import (
    DEFAULTS,
    SETTABLE,
    StoredItem,
    item_content,
    valid_value,
)
from memvault.model.decision import Decision

if TYPE_CHECKING:
    from memvault.engine import Caller, MemoryEngine

__all__ = ["ItemWrites"]


class ItemWrites:
    """The write side of the LangGraph store: judge a batch's puts, then write each."""

    if TYPE_CHECKING:  # what the store provides (langgraph_store.MemvaultStore)
        project: str | None
        _indexed: tuple[str, ...] | None

        @property
        def _engine(self) -> MemoryEngine: ...

        @property
        def _caller(self) -> Caller: ...

        @property
        def _owner(self) -> str | None: ...

        def _find(self, namespace: tuple[str, ...], key: str) -> StoredItem | None: ...

    def _new_vectors(self, ops: Sequence[Op]) -> dict[int, Any]:
        """Document vectors of the batch's new items, embedded in one call, by op index.

        Trigger: a ``batch`` of many puts (a LangGraph app loading memories).
        Why: each ``add`` embedding its own text runs the model once per item;
          one call over all of them is several times cheaper per text.
        Outcome: new items' vectors go to ``add`` as precomputed vectors of the
          engine's model (the gate and the stored embedding reuse them); an
          update or a failed embedding leaves the engine to embed as before.
        """
        embedder = self._engine.embedder
        puts = [(i, op) for i, op in enumerate(ops) if isinstance(op, PutOp)]
        if embedder is None or sum(op.value is not None for _, op in puts) < 2:
            return {}
        live: dict[tuple[tuple[str, ...], str], bool] = {}
        todo: list[tuple[int, str]] = []
        for i, op in puts:
            where = (tuple(op.namespace), op.key)
            if where not in live:
                live[where] = self._find(*where) is not None
            if op.value is None:
                live[where] = False
            elif not live[where]:
                live[where] = True
                todo.append((i, item_content(dict(op.value), op.index, self._indexed)[0]))
        if len(todo) < 2:
            return {}
        try:
            vectors = embedder.embed_documents([content for _, content in todo])
        except Exception:  # the engine embeds each item itself (and reports a failure)
            return {}
        return {
            i: (vector, embedder.model_id) for (i, _), vector in zip(todo, vectors, strict=True)
        }

    def _target(self, op: PutOp) -> StoredItem | None:
        """The item a put changes or deletes: this store's own at its namespace and key.

        A shared item seen by a user's store is not one: their put writes their own
        item (newer, so it is the one they read back); a shared one is never changed
        or deleted through one user's store.
        """
        existing = self._find(tuple(op.namespace), op.key)
        if existing is not None and existing.node.user_id != self._owner:
            return None
        return existing

    def _memory_fields(self, op: PutOp) -> tuple[dict[str, Any], dict[str, Any]]:
        """A put's memory as a new memory's fields, and as the changes of an update."""
        value = dict(op.value or {})
        content, texts = item_content(value, op.index, self._indexed)
        envelope = json.dumps(
            {"namespace": list(op.namespace), "value": value, "indexed": bool(texts)},
            ensure_ascii=False,
        )
        fields = {k: value[k] for k in SETTABLE if k in value and valid_value(k, value[k])}
        new = {
            "content": content,
            "key": op.key,
            "value": envelope,
            "project_id": self.project,
            "user_id": self._owner,
            **DEFAULTS,
            **fields,
        }
        # Provenance (source_kind) is fixed at creation; the rest may change.
        changes = {k: v for k, v in fields.items() if k != "source_kind"}
        return new, {"content": content, "value": envelope, **changes}

    def _judge_puts(self, ops: Sequence[Op], vectors: Mapping[int, tuple[Any, str]]) -> None:
        """Raise :class:`WriteRefusedError` naming every refused put of the batch, before
        any op of it is written.

        Trigger: a ``batch`` with several puts, one of them refused (review S15-R6).
        Why: run in order, the puts before the refused one stayed written and those
          after it were dropped — the caller could not tell what was kept; LangGraph's
          SQL stores write a batch in one transaction.
        Outcome: each put judged as its write will be (:meth:`Caller.judge_new` — the
          new items together, so a user's daily cap counts them —, an update by
          :meth:`Caller.judge_update`); a refusal is recorded as the put's would be,
          and the batch writes nothing. A batch of one put is its write alone (a put
          needing the user's consent is then queued for it, as ``add`` queues it).
        """
        puts = [(i, op) for i, op in enumerate(ops) if isinstance(op, PutOp)]
        if len(puts) < 2:
            return
        caller = self._caller
        state: dict[tuple[tuple[str, ...], str], StoredItem | bool | None] = {}
        refused: list[tuple[PutOp, Decision]] = []
        news: list[tuple[PutOp, NewMemory, tuple[Any, str] | None]] = []
        for i, op in puts:
            where = (tuple(op.namespace), op.key)
            if where not in state:
                state[where] = self._target(op)
            target = state[where]
            if op.value is None:
                state[where] = None
                continue
            new, changes = self._memory_fields(op)
            if isinstance(target, StoredItem):
                memory_id = target.node.memory_id
                patch = caller.memory_patch(memory_id, changes, user=self._owner)
                if isinstance(patch, WriteResult):
                    refused.append((op, _decision(patch)))
                else:
                    decision = caller.judge_update(memory_id, patch, user=self._owner)
                    if not decision.allowed:
                        refused.append((op, decision))
                continue
            # new, or put again after an earlier put of this batch made it (judged as new)
            state[where] = True
            parsed = caller.new_memory(new)
            if isinstance(parsed, WriteResult):
                refused.append((op, _decision(parsed)))
            else:
                news.append((op, parsed, vectors.get(i)))
        if news:
            decisions = caller.judge_new(
                [memory for _, memory, _ in news], vectors=[vector for _, _, vector in news]
            )
            refused += [
                (op, d) for (op, _, _), d in zip(news, decisions, strict=True) if not d.allowed
            ]
        if refused:
            refused.sort(key=lambda pair: pair[1].stop_reason.priority)
            named = "; ".join(
                f"key {op.key!r} in {tuple(op.namespace)!r}: {d.stop_reason.value}"
                + (f" ({d.reason})" if d.reason else "")
                for op, d in refused
            )
            raise WriteRefusedError(
                refused[0][1].stop_reason,
                f"batch refused, nothing written — {named}",
                [(tuple(op.namespace), op.key, d.stop_reason.value) for op, d in refused],
            )

    def _put(self, op: PutOp, vector: tuple[Any, str] | None = None) -> None:
        engine = self._caller
        existing = self._target(op)
        if op.value is None:
            if existing is not None:
                engine.delete(existing.node.memory_id, user=self._owner).raise_for_status()
            return
        new, changes = self._memory_fields(op)
        if existing is not None:
            memory_id = existing.node.memory_id
            patch = engine.memory_patch(memory_id, changes, user=self._owner)
            if not isinstance(patch, WriteResult):
                patch = engine.update(memory_id, patch, user=self._owner)
            patch.raise_for_status()
        else:
            given = {"vector": vector[0], "vector_model": vector[1]} if vector else {}
            parsed = engine.new_memory(new)
            result = parsed if isinstance(parsed, WriteResult) else engine.add(parsed, **given)
            result.raise_for_status()


def _decision(result: WriteResult) -> Decision:
    """A refused write's answer as the gate's decision (its stop reason and why)."""
    return Decision(result.stop_reason, result.detector, result.reason)
