"""Validate and gate: the §7 winner of every finding on a node about to be written.

:class:`Judging` holds the steps that decide whether a write may happen — every
validator, then the gate (batched when the gate can score a batch) — and the
rules that keep the answer one stop reason: findings are ranked by contract §7
(:func:`strongest`), a step that raises fails closed (:func:`fail_closed`), and a
schema problem is a finding ranked with the gate's, never an early exit.
:class:`~memvault.write.pipeline.WritePipeline` is built on it.

>>> broken = Judging(gate=FnGate(lambda op, node: 1 / 0))
>>> broken.judge(MemoryOp.STORE, None).stop_reason.value  # a gate that raises fails closed
'INTERNAL_INCONSISTENCY'
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from typing import Any

from memvault.embed.base import FloatVector
from memvault.errors import StoreUnavailableError, ValidationFailed
from memvault.model.decision import Decision
from memvault.model.enums import MemoryOp, StopReason
from memvault.model.node import MemoryNode
from memvault.policy.write_gate import EMBEDDING_FAILED
from memvault.write.drafts import Draft, LogFn
from memvault.write.spec import FieldGate, WriteGate

__all__ = [
    "STORE_UNAVAILABLE",
    "FnGate",
    "Judging",
    "LogFn",
    "Validator",
    "fail_closed",
    "strongest",
]


Validator = Callable[[MemoryOp, MemoryNode], Decision | None]
"""A validator step: ``None`` when the node passes, else a refusal ranked with the gate's."""


def strongest(decisions: Iterable[Decision]) -> Decision:
    """The decision that wins under contract §7 (first one on a tie).

    >>> a = Decision(StopReason.SCHEMA_INVALID, "schema")
    >>> b = Decision(StopReason.INJECTION_DETECTED, "detector.injection")
    >>> strongest([a, b]).stop_reason.value
    'INJECTION_DETECTED'
    """
    return min(decisions, key=lambda d: d.stop_reason.priority)


#: The detector of a decision no step could make because the store was unavailable.
STORE_UNAVAILABLE = "store"


def fail_closed(where: str, exc: BaseException | None = None) -> Decision:
    """What any exception inside a step becomes (INV-8).

    Trigger: a step read an unavailable store (the gate counts the user's writes
      today for the entitlement caps).
    Why: "gate raised" blamed the gate — HTTP 500 and exit 1 instead of the store
      unavailable answer a failed commit gets (503, exit 4).
    Outcome: such a failure is named for the store (:data:`STORE_UNAVAILABLE`), and
      the write's result is flagged ``store_unavailable``.

    >>> fail_closed("gate").reason
    'gate raised'
    """
    if isinstance(exc, StoreUnavailableError):
        return Decision(
            StopReason.INTERNAL_INCONSISTENCY,
            detector=STORE_UNAVAILABLE,
            reason=f"the memory store is unavailable ({where}: {type(exc).__name__})",
        )
    return Decision(StopReason.INTERNAL_INCONSISTENCY, detector=where, reason=f"{where} raised")


class FnGate:
    """A ``WriteGate`` over a plain ``(op, node) -> Decision`` function."""

    def __init__(self, gate: Callable[[MemoryOp, MemoryNode], Decision]) -> None:
        self.gate = gate

    def check(self, op: MemoryOp, node: MemoryNode, *, agent_id: str | None) -> Decision:
        return self.gate(op, node)


def _model(draft: Draft) -> str | None:
    """The model of ``draft``'s vector for the gate (or the mark of a failed embedding)."""
    if draft.vector is not None or draft.vector_model == EMBEDDING_FAILED:
        return draft.vector_model
    return None


class Judging:
    """The validate and gate steps of a write, with the log they report failures to.

    ``validators`` run first (each ``(op, node) -> Decision | None``), then the
    gate; any exception in a step is INTERNAL_INCONSISTENCY (fail closed).
    """

    def __init__(
        self,
        *,
        gate: WriteGate,
        agent_id: str | None = None,
        validators: Sequence[Validator] = (),
        log: LogFn | None = None,
    ) -> None:
        self.gate = gate
        self.agent_id = agent_id
        self.validators = tuple(validators)
        self.log_fn = log

    def log(self, level: str, event: str, **fields: Any) -> None:
        if self.log_fn is not None:
            self.log_fn(level, event, **fields)

    def judge(
        self,
        op: MemoryOp,
        node: MemoryNode,
        *,
        vector: FloatVector | None = None,
        vector_model: str | None = None,
        findings: Sequence[Decision] = (),
    ) -> Decision:
        """Every validator and the gate; the §7 winner of their findings.

        Any exception in a step is INTERNAL_INCONSISTENCY (fail closed).
        """
        verdicts = [*findings, *self.validated(op, node)]
        verdicts.append(self.check(op, Draft(node, vector, vector_model=vector_model)))
        return strongest(verdicts)

    def validated(self, op: MemoryOp, node: MemoryNode) -> list[Decision]:
        """Every validator step's finding on ``node`` (an exception fails closed)."""
        verdicts: list[Decision] = []
        for validate in self.validators:
            try:
                found = validate(op, node)
            except Exception as exc:
                self.log("error", "validator_failed", error=f"{type(exc).__name__}: {exc}")
                found = fail_closed("validator", exc)
            if found is not None:
                verdicts.append(found)
        return verdicts

    def judge_many(self, op: MemoryOp, drafts: Sequence[Draft]) -> list[Decision]:
        """:meth:`judge` of every draft (with its vector): exactly the per-draft answers.

        Trigger: a batch (``add_many``, ingest's files).
        Why: the gate judged one draft at a time was ~75% of a bulk load; a gate
          with ``check_many`` scores the batch's learned heads at once.
        Outcome: the validators run per draft, the gate once per batch
          (:meth:`check_many`); each draft gets the §7 winner, as ``judge`` gives.
        """
        if len(drafts) < 2:
            return [
                self.judge(op, d.node, vector=d.vector, vector_model=d.vector_model) for d in drafts
            ]
        gated = self.check_many(op, drafts)
        return [
            strongest([*self.validated(op, d.node), decision])
            for d, decision in zip(drafts, gated, strict=True)
        ]

    def judge_stream(
        self, op: MemoryOp, chunks: Iterable[Sequence[Draft]]
    ) -> Generator[tuple[Sequence[Draft], list[Decision]], None, None]:
        """Each chunk with :meth:`judge_many`'s answers (the gate's ``check_stream`` if it has one).

        Trigger: a bulk write in sub-batches (``WritePipeline.add_many``).
        Why: the gate's second process idled while this process built a chunk
          and prepared its write; a gate with ``check_stream`` judges chunk k+1
          there while the caller works on chunk k.
        Outcome: a chunk is taken from ``chunks`` when the gate asks for it;
          each chunk gets exactly :meth:`judge_many`'s answers (a list of one
          chunk is :meth:`judge_many`'s, the gate's ``check_many``). A stream that
          raises is closed, and every chunk it took but did not answer (and every
          later one) is judged by :meth:`judge_many` — per draft where that fails.
        """
        stream: Any = getattr(self.gate, "check_stream", None)
        if stream is None or (isinstance(chunks, Sequence) and len(chunks) == 1):
            yield from ((chunk, self.judge_many(op, chunk)) for chunk in chunks)
            return
        taken: deque[Sequence[Draft]] = deque()
        rest = iter(chunks)

        failed: list[BaseException] = []  # the caller's own chunks raised: not the gate's

        def batches() -> Iterator[list[tuple[MemoryNode, Any, str | None]]]:
            while True:
                try:
                    chunk = next(rest)
                except StopIteration:
                    return
                except BaseException as exc:
                    failed.append(exc)
                    raise
                taken.append(chunk)
                yield self.gate_inputs(chunk)

        gated = stream(op, batches(), agent_id=self.agent_id)
        try:
            while True:
                try:
                    decisions: list[Decision] = next(gated)
                except StopIteration:
                    return
                if len(decisions) != len(taken[0]):
                    raise ValueError(f"{len(decisions)} decisions for {len(taken[0])} drafts")
                chunk = taken.popleft()
                yield (
                    chunk,
                    [
                        strongest([*self.validated(op, d.node), decision])
                        for d, decision in zip(chunk, decisions, strict=True)
                    ],
                )
        except Exception as exc:
            if failed:
                raise
            self.log("error", "gate_failed", error=f"{type(exc).__name__}: {exc}")
            gated.close()
            while taken:
                chunk = taken.popleft()
                yield chunk, self.judge_many(op, chunk)
            yield from ((chunk, self.judge_many(op, chunk)) for chunk in rest)
        finally:
            gated.close()

    def gate_inputs(self, drafts: Sequence[Draft]) -> list[tuple[MemoryNode, Any, str | None]]:
        """Each draft's node, with its vector and model when the gate ``reads_vectors``."""
        if not getattr(self.gate, "reads_vectors", False):
            return [(d.node, None, None) for d in drafts]
        return [(d.node, d.vector, _model(d)) for d in drafts]

    def check_many(self, op: MemoryOp, drafts: Sequence[Draft]) -> list[Decision]:
        """:meth:`check` of every draft; the gate's ``check_many`` when it has one.

        A batch call that raises is retried draft by draft, so each draft gets
        what :meth:`check` answers (INTERNAL_INCONSISTENCY only where that fails).
        """
        many: Any = getattr(self.gate, "check_many", None)
        if many is None:
            return [self.check(op, d) for d in drafts]
        inputs = self.gate_inputs(drafts)
        vectors = [v for _, v, _ in inputs]
        models = [m for _, _, m in inputs]
        try:
            decisions: list[Decision] = list(
                many(
                    op,
                    [d.node for d in drafts],
                    agent_id=self.agent_id,
                    vectors=vectors,
                    vector_models=models,
                )
            )
            if len(decisions) != len(drafts):
                raise ValueError(f"{len(decisions)} decisions for {len(drafts)} drafts")
            return decisions
        except Exception as exc:
            self.log("error", "gate_failed", error=f"{type(exc).__name__}: {exc}")
            return [self.check(op, d) for d in drafts]

    def check(self, op: MemoryOp, draft: Draft) -> Decision:
        """The gate alone on ``draft``'s node; an exception is INTERNAL_INCONSISTENCY.

        A gate that declares ``reads_vectors`` gets the draft's vector and the
        ``model_id`` of the embedder that made it (it decides whether it can use them).
        """
        node, vector = draft.node, draft.vector
        try:
            if _model(draft) is not None and getattr(self.gate, "reads_vectors", False):
                check: Any = self.gate.check
                decision: Decision = check(
                    op, node, agent_id=self.agent_id, vector=vector, vector_model=draft.vector_model
                )
                return decision
            return self.gate.check(op, node, agent_id=self.agent_id)
        except Exception as exc:
            self.log("error", "gate_failed", error=f"{type(exc).__name__}: {exc}")
            return fail_closed("gate", exc)

    def judge_invalid(
        self, op: MemoryOp, failed: ValidationFailed, fields: Mapping[str, Any]
    ) -> Decision:
        """A schema problem as a finding, ranked with what the gate says about the raw fields.

        Trigger: no node could be built (a bad ``type``, an unknown field).
        Why: contract §7 — "Ignore all previous instructions…" with a bad type
        is INJECTION_DETECTED, as ``policy check`` answers, not SCHEMA_INVALID.
        Outcome: the gate (when it can judge raw fields) sees the text; the
        higher-ranked stop reason wins, the schema finding on a tie.
        """
        schema = Decision(failed.stop_reason, detector="schema", reason=failed.message)
        if not isinstance(self.gate, FieldGate):
            return schema
        try:
            verdict = self.gate.check_fields(op, dict(fields), agent_id=self.agent_id)
        except Exception as exc:
            self.log("error", "gate_failed", error=f"{type(exc).__name__}: {exc}")
            verdict = fail_closed("gate", exc)
        if verdict.allowed:
            return schema
        return strongest([schema, verdict])
