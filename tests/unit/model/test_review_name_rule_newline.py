"""Review S18-R8: a name with a trailing line break passes every ``NameRule``.

``NameRule`` checks a name with ``pattern.match`` and patterns ending in ``$``, which also
matches before a final ``"\\n"`` — the bug S17-R2 fixed in the API keys' agent rule. So
``MemoryEngine.open(home, "acme\\n")`` creates a second tenant directory ``acme\\n`` beside
``acme`` and only fails at the first write (SCHEMA_INVALID on ``orchestrator_id``, a name the
caller never gave); a thread id ``"t1\\n"`` is a thread of its own whose delta header ``t1``
never sees; a PostgreSQL schema name "spliced into SQL safely" takes the line break.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memvault.context.delta import validate_thread_id
from memvault.errors import ConfigError, ValidationFailed
from memvault.layout import validate_orchestrator
from memvault.store.postgres.schema import validate_schema_name

RULES = {
    "orchestrator": (validate_orchestrator, "acme", ConfigError),
    "thread": (validate_thread_id, "chan:42", ValidationFailed),
    "schema": (validate_schema_name, "memvault", ConfigError),
}


@pytest.mark.parametrize(("rule", "name", "error"), RULES.values(), ids=RULES.keys())
def test_a_trailing_line_break_is_refused(
    rule: Callable[[object], str], name: str, error: type
) -> None:
    with pytest.raises(error):
        rule(f"{name}\n")


@pytest.mark.parametrize(("rule", "name", "error"), RULES.values(), ids=RULES.keys())
def test_the_name_itself_passes_and_a_break_inside_is_refused(
    rule: Callable[[object], str], name: str, error: type
) -> None:
    """Near misses: the name as given, and a line break before its end."""
    assert rule(name) == name
    with pytest.raises(error):
        rule(f"{name}\nx")
