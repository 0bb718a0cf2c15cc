"""Links inside a space that lead nowhere: to missing pages or attachments, or relative paths the
handbook cannot serve. Answers only from what the asking editor may see, so the report never tells
whether a hidden page exists."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from handbook.attachment_models import Attachment
from handbook.markdown_import.links import is_external, link_targets
from handbook.models import Page, SlugRedirect, Space

_PAGE_URL = re.compile(r"^/spaces/(?P<space>[\w-]+)/(?P<slug>[\w-]+)/?(?:[#?].*)?$")
_ATTACHMENT_URL = re.compile(r"^/attachments/(?P<id>[0-9a-fA-F-]{32,36})(?:/[^#?]*)?$")


@dataclass(frozen=True)
class BrokenLink:
    page: Page
    target: str
    reason: str


def broken_links(*, space: Space, user: Any) -> list[BrokenLink]:
    readable = Page.objects.visible_to(user).values("id")
    editable = Page.objects.editable_by(user).values("id")
    seen_pages = Page.objects.filter(Q(id__in=readable) | Q(id__in=editable))
    pages = list(Page.objects.editable_by(user).filter(space=space).published().order_by("title"))
    found: list[BrokenLink] = []
    for page in pages:
        for target in dict.fromkeys(link_targets(page.body)):
            if not target or target.startswith(("#", "mailto:")) or is_external(target):
                continue
            if match := _PAGE_URL.match(target):
                space_slug, slug = match.group("space"), match.group("slug")
                exists = (
                    seen_pages.filter(space__slug=space_slug, slug=slug).exists()
                    or seen_pages.filter(
                        pk__in=SlugRedirect.objects.filter(space_slug=space_slug, page_slug=slug).values("page_id")
                    ).exists()
                )
                if not exists:
                    found.append(BrokenLink(page, target, "page"))
            elif match := _ATTACHMENT_URL.match(target):
                try:
                    attachment_id = uuid.UUID(match.group("id"))
                except ValueError:
                    attachment_id = None
                if (
                    attachment_id is None
                    or not Attachment.objects.filter(pk=attachment_id, page__in=seen_pages).exists()
                ):
                    found.append(BrokenLink(page, target, "attachment"))
            elif not target.startswith(("/search", "/ask", "/spaces/")):
                found.append(BrokenLink(page, target, "path"))
    return found
