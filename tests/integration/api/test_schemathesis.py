"""Schemathesis over the OpenAPI document: the server does what the document says.

Every operation is generated from the document and every response checked by
schemathesis (status codes documented, bodies conform, schema-valid requests
accepted and invalid ones rejected, ``Allow`` headers); the stateful run
follows the document's links from ``POST /v1/memories`` (201) to get, patch,
delete and restore. Examples are bounded to keep the suite fast.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import Case
from schemathesis.specs.openapi.checks import negative_data_rejection

from tests.integration.api.conftest import Live

SETTINGS = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)


@pytest.fixture(scope="module")
def api_schema(live: Live) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{live.url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


def _auth(live: Live) -> dict[str, str]:
    return {"Authorization": f"Bearer {live.keys['writer']}"}


@schema.parametrize()
@SETTINGS
def test_every_operation_conforms(case: Case, live: Live) -> None:
    case.call_and_validate(base_url=live.url, headers=_auth(live))


def test_stateful_links_create_get_patch_delete_restore(
    api_schema: schemathesis.BaseSchema, live: Live
) -> None:
    seen: Counter[tuple[str, str, int]] = Counter()
    machine = api_schema.as_state_machine()

    class Authed(machine):  # type: ignore[misc,valid-type]
        def get_call_kwargs(self, case: Case) -> dict[str, Any]:
            return {"base_url": live.url, "headers": _auth(live)}

        def after_call(self, response: Any, case: Case) -> None:
            super().after_call(response, case)
            seen[(case.method, case.operation.path, response.status_code)] += 1

        def validate_response(
            self, response: Any, case: Case, additional_checks: Any = None, **kwargs: Any
        ) -> None:
            # The stateful run is about the links. Its negative cases are not checked for
            # rejection: an integer mutation of a string query parameter is sent as digits,
            # a valid string (schemathesis's own false positive, upstream issue #3962), and
            # a removed Authorization header is put back by get_call_kwargs. Rejection of
            # schema-violating requests is checked per operation above.
            case.validate_response(
                response,
                additional_checks=additional_checks,
                excluded_checks=[negative_data_rejection],
                transport_kwargs=kwargs or None,
                recorder=self.recorder,
            )

    Authed.run(
        settings=settings(
            max_examples=15,
            stateful_step_count=6,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
    )
    created = seen[("POST", "/v1/memories", 201)]
    assert created > 0, seen
    followed = {
        (method, path)
        for (method, path, status), _ in seen.items()
        if path.startswith("/v1/memories/{memory_id}") and status == 200
    }
    # The links were followed with real ids (a generated id never exists): the created
    # memory was read or changed (retracted too: which link the derandomised run takes
    # changes with any change of a response, session 16).
    linked = {
        ("GET", "/v1/memories/{memory_id}"),
        ("PATCH", "/v1/memories/{memory_id}"),
        ("DELETE", "/v1/memories/{memory_id}"),
        ("POST", "/v1/memories/{memory_id}/restore"),
        ("POST", "/v1/memories/{memory_id}/retract"),
    }
    assert followed & linked, seen
