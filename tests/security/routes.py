"""The route table of the permission proof: every address the site answers, described.

Each web route (as Django's URLconf spells it), each REST operation (as the OpenAPI schema names
it) and each MCP tool and resource says which kinds of object fill its parameters and who may
write through it. ``tests/security/matrix_routes.py`` probes every one of them for every person of
a world; ``test_every_route_is_described`` walks the URLconf, the schema and the MCP server and
fails on any route this table does not describe (or describes but no longer exists).

Who may write (``writes``), for one person and the object that fills the route:
``anyone`` and ``signed_in`` (every active account: what they write is their own), ``page_reader``,
``page_editor``, ``space_editor``, ``reviewer`` (a reviewer of the page's space), ``verified_editor``
(may edit the verified answer's page, or its space for a gap), ``token_owner``, and ``nobody`` (the
route takes no writes). The admin's model pages are described by the admin itself (one family
per registered model: staff with the model's permissions) and probed by ``matrix_admin``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Route:
    fills: tuple[str, ...] = ()  # kinds of object filling the path parameters, in order
    writes: str = "nobody"
    # Query strings a GET is tried with ("{q}": each of the world's questions; "{page_id}": the filling page).
    queries: tuple[str, ...] = ("",)
    # The body of a POST ("{…}" filled like the queries): what a form of the route would send.
    data: dict[str, str] = field(default_factory=dict)
    hx: bool = False  # also GET as htmx (a fragment answers)


SAVE = {"title": "Routed", "body": "# Routed\n\nrouted text", "action": "publish", "note": "n", "language": "en"}

WEB: dict[str, Route] = {
    "": Route(),
    "accounts/login/": Route(writes="anyone"),
    "accounts/logout/": Route(writes="anyone"),
    "i18n/setlang/": Route(writes="anyone", data={"language": "fr"}),
    "healthz": Route(),
    "attachments/<uuid:attachment_id>/": Route(fills=("attachment",)),
    "attachments/<uuid:attachment_id>/<str:filename>": Route(fills=("attachment", "filename")),
    "preview/": Route(writes="signed_in", data={"body": "# x"}),
    "spaces/<slug:space_slug>/": Route(fills=("space",)),
    "spaces/<slug:space_slug>/_new/": Route(fills=("space",), writes="space_editor", data=SAVE),
    "spaces/<slug:space_slug>/_new/attachments/": Route(
        fills=("space",), writes="space_editor", data={"draft_token": "0123456789abcdef0123456789abcdef"}
    ),
    "spaces/<slug:space_slug>/_access/": Route(fills=("space",), writes="space_editor", data={"viewer_groups": ""}),
    "spaces/<slug:space_slug>/_approval/": Route(fills=("space",), writes="space_editor", data={"requires_review": ""}),
    "spaces/<slug:space_slug>/_export/": Route(fills=("space",)),
    "spaces/<slug:space_slug>/_links/": Route(fills=("space",)),
    "spaces/<slug:space_slug>/<slug:page_slug>/": Route(fills=("page",)),
    "spaces/<slug:space_slug>/<slug:page_slug>/edit/": Route(fills=("page",), writes="page_editor", data=SAVE),
    "spaces/<slug:space_slug>/<slug:page_slug>/publish/": Route(
        fills=("page",), writes="page_editor", data={"number": "1"}
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/approval/": Route(
        fills=("page",), writes="reviewer", data={"decision": "approve", "comment": "ok"}
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/history/": Route(fills=("page",), queries=("", "from=1&to=2")),
    "spaces/<slug:space_slug>/<slug:page_slug>/impact/": Route(fills=("page",), queries=("", "revision=1"), hx=True),
    "spaces/<slug:space_slug>/<slug:page_slug>/history/<int:number>/": Route(
        fills=("page", "revision"), queries=("", "against=1")
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/history/<int:number>/restore/": Route(
        fills=("page", "revision"), writes="page_editor", data={"action": "publish"}
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/rename/": Route(
        fills=("page",), writes="page_editor", data={"title": "Renamed by the route proof"}
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/move/": Route(
        fills=("page",), writes="page_editor", data={"space": "{space_id}"}
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/delete/": Route(fills=("page",), writes="page_editor"),
    "spaces/<slug:space_slug>/<slug:page_slug>/access/": Route(
        fills=("page",), writes="page_editor", data={"restricted_to_groups": ""}
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/attachments/": Route(fills=("page",), writes="page_editor"),
    "spaces/<slug:space_slug>/<slug:page_slug>/translations/": Route(
        fills=("page",), writes="page_editor", data={"action": "unlink"}
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/translations/dismiss/": Route(fills=("page",), writes="page_editor"),
    "spaces/<slug:space_slug>/<slug:page_slug>/comments/": Route(
        fills=("page",), writes="page_reader", data={"body": "routed comment"}, hx=True
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/comments/<int:comment_id>/resolve/": Route(
        fills=("page", "comment"), writes="page_reader"
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/comments/<int:comment_id>/reopen/": Route(
        fills=("page", "comment"), writes="page_reader"
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/comments/<int:comment_id>/delete/": Route(
        fills=("page", "comment"), writes="page_reader"
    ),
    "spaces/<slug:space_slug>/<slug:page_slug>/editing-now/": Route(fills=("page",), writes="page_editor"),
    "spaces/<slug:space_slug>/<slug:page_slug>/summary/pick/": Route(
        fills=("page",), writes="page_editor", data={"revision": "{revision_id}", "unit": "x"}
    ),
    "search/": Route(queries=("q={q}",), hx=True),
    "search/typing/": Route(queries=("q={q}",), hx=True),
    "search/opened/": Route(
        fills=("page_id",),
        writes="signed_in",
        data={"page": "{page_id}", "log": "00000000-0000-0000-0000-000000000000"},
    ),
    "ask/": Route(writes="signed_in", queries=("", "q={q}"), data={"q": "{q}"}),
    "ask/stream/": Route(writes="signed_in", data={"q": "{q}", "typing": "1"}),
    "ask/feedback/": Route(
        fills=("asklog",), writes="asklog_owner", data={"log_id": "{asklog_id}", "helpful": "false", "comment": "c"}
    ),
    "ask/verify/": Route(
        fills=("page_id",),
        writes="page_editor",
        queries=("q={q}", "q={q}&page={page_id}"),
        data={"q": "{q}", "page": "{page_id}", "action": "verify", "unit": "x"},
    ),
    "ask/verified/<int:pk>/": Route(fills=("verified",), writes="verified_editor", data={"action": "withdraw"}),
    "insights/": Route(),
    "accounts/profile/": Route(writes="signed_in"),
    "accounts/tokens/<int:token_id>/revoke/": Route(fills=("token",), writes="token_owner"),
    "oidc/authenticate/": Route(writes="anyone"),
    "oidc/callback/": Route(writes="anyone"),
    "api/v1/": Route(writes="anyone"),
    "api/v1/openapi.json": Route(),
    "api/v1/docs": Route(),
    # The REST operations: probed through ``API`` below (their own auth, their own JSON).
    "api/v1/search": Route(queries=("q={q}",)),
    "api/v1/ask": Route(writes="signed_in"),
    "api/v1/ask/stream": Route(writes="signed_in"),
    "api/v1/pages/<path:ref>": Route(fills=("ref",)),
    "api/v1/impact": Route(fills=("ref",), queries=("ref={ref}", "ref={ref}&revision=1")),
    "api/v1/spaces/<space>/pages/<slug>": Route(fills=("page",)),
    "api/v1/spaces/<space>/pages": Route(fills=("space",)),
    "api/v1/spaces": Route(),
    "^api/v1(?:/(?P<rest>.*))?$": Route(writes="anyone"),
    "mcp": Route(writes="signed_in"),
}

# The admin site's own pages (the registered models' pages are described by the admin: see above).
ADMIN_SITE: dict[str, Route] = {
    "admin/": Route(),
    "admin/login/": Route(writes="anyone"),
    "admin/logout/": Route(writes="anyone"),
    "admin/password_change/": Route(writes="signed_in"),
    "admin/password_change/done/": Route(),
    "admin/autocomplete/": Route(),
    "admin/jsi18n/": Route(),
    "admin/r/<path:content_type_id>/<path:object_id>/": Route(),
    "admin/^(?P<app_label>auth|handbook|search|summaries|accounts)/$": Route(),
    "admin/(?P<url>.*)$": Route(),
}

# REST operations, as "METHOD /path" from the OpenAPI schema: the path parameters they are filled with,
# and the JSON body of a POST. Every one reads (a token or a session): a GET is scanned for canaries.
API: dict[str, Route] = {
    "GET /api/v1/search": Route(queries=("q={q}", "q={q}&limit=50")),
    "POST /api/v1/ask": Route(writes="signed_in", data={"question": "{q}"}),
    "POST /api/v1/ask/stream": Route(writes="signed_in", data={"question": "{q}"}),
    "GET /api/v1/pages/{ref}": Route(fills=("ref",)),
    "GET /api/v1/impact": Route(fills=("ref",), queries=("ref={ref}", "ref={ref}&revision=1")),
    "GET /api/v1/spaces/{space}/pages/{slug}": Route(fills=("page",)),
    "GET /api/v1/spaces/{space}/pages": Route(fills=("space",)),
    "GET /api/v1/spaces": Route(),
}

# MCP tools (their arguments) and resources (their URIs; "{ref}" a page's ref).
MCP_TOOLS: dict[str, Route] = {
    "search": Route(data={"query": "{q}", "limit": "50"}),
    "ask": Route(data={"question": "{q}"}),
    "read_page": Route(fills=("ref",), data={"ref": "{ref}"}),
}
MCP_RESOURCES: dict[str, Route] = {
    "handbook://pages": Route(),
    "handbook://pages/{ref}": Route(fills=("ref",)),
}
