"""The caller's façade exposes methods and named harmless attributes only (no store, no core),
and the inspector's source reads other categories' and users' memories through none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault.access import AccessControl
from memvault.access.keys import Principal
from memvault.config import load_config
from memvault.engine import Grant, MemoryEngine
from memvault.engine._caller import Caller
from memvault.engine._grant import _Forward
from memvault.errors import AccessDeniedError, MemoryNotFoundError
from memvault.inspector.source import MemorySource
from tests.helpers import add_fields
from tests.integration.caller.conftest import PREF, TODO


def test_engine_objects_are_unreachable_through_a_caller(engine: MemoryEngine) -> None:
    caller = engine.as_caller(Grant("admin"))  # even the widest grant
    for name in (
        "store",
        "core",
        "_core",
        "engine",
        "layout",
        "config",
        "settings",
        "embedder",
        "__dict__",
        "acting",
        "as_caller",
        "_engine_of_nobody",
    ):
        with pytest.raises(AttributeError):
            getattr(caller, name)
    assert caller.orchestrator == "acme"
    assert "TODO" in caller.categories
    assert not hasattr(caller, "__dict__")  # nothing can be parked on it either
    with pytest.raises(AttributeError):
        caller.store = engine.store  # type: ignore[misc]


def test_every_public_engine_method_is_authorised_or_absent(engine: MemoryEngine) -> None:
    denied: list[str] = []
    reader = engine.as_caller(
        Grant("viewer", frozenset({"TODO"}), read_only=True),
        on_deny=lambda g, reason, op, cats: denied.append(op),
    )
    typed = {n for n, v in vars(Caller).items() if callable(v) and not n.startswith("_")}
    for name in sorted(n for n in dir(MemoryEngine) if not n.startswith("_")):
        if name in ("orchestrator", "categories"):
            continue  # the two read-only attributes
        try:
            value = getattr(reader, name)
        except AttributeError:
            continue  # absent: not a method, or withheld
        assert callable(value), name
        if name in typed:
            continue  # written on the façade, authorised in its body
        # Forwarded: authorised by its rule (an undeclared one as a spanning write, which
        # a read-only, category-limited grant is refused before anything runs).
        rule = vars(Caller).get(name)
        writes, spans_all = (
            (rule.write, rule.spans_all) if isinstance(rule, _Forward) else (True, True)
        )
        if writes or spans_all:
            with pytest.raises(AccessDeniedError):
                value()
    assert denied  # each refusal went through the audit hook


def test_each_forward_is_the_engine_method_it_types() -> None:
    """A forward is typed as, and runs, the very method the engine names (no second copy)."""
    forwards = {n: v for n, v in vars(Caller).items() if isinstance(v, _Forward)}
    assert forwards
    for name, forward in forwards.items():
        assert getattr(MemoryEngine, name) is forward.method, name


def _seeded(tmp_path: Path) -> tuple[AccessControl, dict[str, str]]:
    control = AccessControl(tmp_path, load_config(environ={}))
    seed = control.engine(Principal("acme", "seed", "k0", all_users=True))
    ids: dict[str, str] = {}
    for key, content, fields, user in [
        ("todo_dana", "Dana: write the parser tests", TODO, "dana"),
        ("todo_eli", "Eli: renew the certificate", TODO, "eli"),
        ("pref_dana", "Dana prefers tea", PREF, "dana"),
    ]:
        result = add_fields(seed, content, **fields, user_id=user)
        assert result.ok and result.memory_id, result
        ids[key] = result.memory_id
    for a, b in [("todo_dana", "pref_dana"), ("todo_dana", "todo_eli")]:
        assert seed.link(ids[a], ids[b], "RelatedTo").ok
    return control, ids


def test_inspector_source_holds_nodes_and_edges_to_the_category(tmp_path: Path) -> None:
    control, ids = _seeded(tmp_path)
    try:
        # a key that may list every user's memories (--all-users): by id it reads them too
        todo = MemorySource(
            control,
            Principal("acme", "planner", "k1", frozenset({"TODO"}), all_users=True),
            "t",
        )
        seen = {n.memory_id for n in todo.nodes(list(ids.values()))}
        assert seen == {ids["todo_dana"], ids["todo_eli"]}
        graph = todo.graph(memory_id=ids["todo_dana"])
        assert ids["pref_dana"] not in {n.memory_id for n in graph.nodes}
        ends = {e for edge in graph.edges for e in (edge.from_memory_id, edge.to_memory_id)}
        assert ends == {ids["todo_dana"], ids["todo_eli"]}  # the edge to PREFERENCE is left out
        assert todo.engine.edges_of([ids["pref_dana"]]) == []
        with pytest.raises(AccessDeniedError):
            todo.graph(memory_id=ids["pref_dana"])
        with pytest.raises(AccessDeniedError):
            todo.audit_head()
        assert todo.revision() == control.opened()["acme"].store.revision("acme") > 0
        everyone = MemorySource(control, Principal("acme", "admin", "k2", all_users=True), "t")
        assert len(everyone.graph(memory_id=ids["todo_dana"]).edges) == 2
    finally:
        control.close()


def test_inspector_source_holds_nodes_and_edges_to_the_user(tmp_path: Path) -> None:
    control, ids = _seeded(tmp_path)
    try:
        eli = MemorySource(control, Principal("acme", "eli-agent", "k3", user="eli"), "t")
        assert [n.memory_id for n in eli.nodes(list(ids.values()))] == [ids["todo_eli"]]
        assert eli.engine.edges_of([ids["todo_dana"], ids["pref_dana"]]) == []
        assert eli.engine.edges_of([ids["todo_eli"]]) == []  # its one edge leads to Dana's
        with pytest.raises(MemoryNotFoundError):
            eli.graph(memory_id=ids["todo_dana"])
    finally:
        control.close()
