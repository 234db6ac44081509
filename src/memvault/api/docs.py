"""``/docs``: the Swagger UI page of the OpenAPI document, from local assets.

Trigger: ``memvault serve`` prints a ``docs:`` link, and FastAPI's page loaded
Swagger UI's script and style from cdn.jsdelivr.net.
Why: memvault runs air-gapped (README); offline the page was blank.
Outcome: the script and style come from the ``swagger-ui-bundle`` wheel, served
at ``/docs/assets``; the page names no other host.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

__all__ = ["ASSETS_PATH", "mount"]

#: Where the page's script and style are served.
ASSETS_PATH = "/docs/assets"


def _assets() -> Path:
    import swagger_ui_bundle  # type: ignore[import-untyped]

    return Path(swagger_ui_bundle.swagger_ui_path)


def mount(app: FastAPI) -> None:
    """Add ``GET /docs`` and its assets to ``app`` (outside the OpenAPI document).

    >>> app = FastAPI(docs_url=None)
    >>> mount(app)
    >>> sorted(r.path for r in app.routes if r.path.startswith("/docs"))
    ['/docs', '/docs/assets']
    """
    openapi_url = app.openapi_url or "/openapi.json"

    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} — API",
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_PATH}/favicon-32x32.png",
        )

    app.add_api_route("/docs", docs, methods=["GET"], include_in_schema=False)
    app.mount(ASSETS_PATH, StaticFiles(directory=_assets()), name="docs-assets")
