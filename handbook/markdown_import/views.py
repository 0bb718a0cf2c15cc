"""Export a space (zip of Markdown) and list its broken links: for the space's editors."""

from __future__ import annotations

import tempfile

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from handbook.lookups import editable_space
from handbook.markdown_import.export import space_export
from handbook.markdown_import.linkcheck import broken_links


@login_required
@require_GET
def space_export_zip(request: HttpRequest, space_slug: str) -> FileResponse:
    space = editable_space(request.user, space_slug)
    out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by FileResponse
    # Editors export what they read: a page restricted to a group they are not in stays out.
    space_export(space, out, user=request.user)
    out.seek(0)
    return FileResponse(out, as_attachment=True, filename=f"{space.slug}.zip", content_type="application/zip")


@login_required
@require_GET
def space_broken_links(request: HttpRequest, space_slug: str) -> HttpResponse:
    space = editable_space(request.user, space_slug)
    return render(
        request, "handbook/space_links.html", {"space": space, "broken": broken_links(space=space, user=request.user)}
    )
