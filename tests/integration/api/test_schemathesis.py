"""A short property-based run over the OpenAPI document: no input may cause a 5xx."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import Case

from tests.integration.api.conftest import Live


@pytest.fixture(scope="module")
def api_schema(live: Live) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{live.url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_server_errors(case: Case, live: Live) -> None:
    response = case.call(
        base_url=live.url, headers={"Authorization": f"Bearer {live.keys['writer']}"}
    )
    assert response.status_code < 500, (case.method, case.path, response.text[:500])
