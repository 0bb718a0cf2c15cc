"""A page's restriction in its front matter: ``restricted_to: [group, …]``, written by the export
for restricted pages only and applied by the import.

- No ``restricted_to``: the file says nothing. A new page is not restricted; a page imported
  earlier keeps whatever restriction it has in the handbook (someone may have set it by hand).
- ``restricted_to: [payroll, hr-leads]`` (or one name as a string): the page is restricted to
  exactly these groups, replacing any restriction it had, as its text is replaced by the file's.
- ``restricted_to: []``: the restriction is lifted.

The import fails closed: a value it cannot use (not a list of names, a group that does not exist,
a front matter block that mentions ``restricted_to`` but was refused or could not be read) means
the file is not imported at all, and the report says why. Not even as a draft: a draft without its
restriction is readable by every editor of the space, which the restriction may be meant to keep
out. A page imported from that file earlier is left exactly as it is (text, restriction, place in
the tree) and is not counted as gone, so ``--delete-missing`` does not archive it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.utils.translation import gettext as _

from handbook.models import Page
from handbook.services import page_set_restrictions

KEY = "restricted_to"
# Stands for the value of a front matter block that was dropped (refused or unreadable) and
# mentions the key: whatever it said, the import cannot tell, so it treats it as unusable.
UNREADABLE = object()


class RestrictionUnusable(Exception):  # noqa: N818 - a reason to skip a file, reported as such
    """``str()`` is the import report's reason."""


def mentions_restriction(block: str) -> bool:
    return KEY in block


def restriction_from(meta: dict[str, Any]) -> list[Group] | None:
    """The groups the file restricts its page to; ``None`` when the file does not say
    (``RestrictionUnusable`` when it says something the import cannot apply)."""
    if KEY not in meta:
        return None
    value = meta[KEY]
    if value is UNREADABLE:
        raise RestrictionUnusable(
            _(
                "front matter mentioning restricted_to was refused or could not be read (a YAML alias, over 64 KB, "
                "broken YAML): the page was not imported"
            )
        )
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(name, str) and name.strip() for name in names):
        raise RestrictionUnusable(_("restricted_to is not a list of group names: the page was not imported"))
    groups = list(Group.objects.filter(name__in=names))
    unknown = sorted(set(names) - {group.name for group in groups})
    if unknown:
        message = _("restricted_to names groups that do not exist (%(names)s): the page was not imported")
        raise RestrictionUnusable(message % {"names": ", ".join(unknown)})
    return groups


def restriction_apply(page: Page, groups: list[Group] | None) -> bool:
    """Give an existing page the file's restriction (``None``: the file does not say, the page keeps
    its own); whether it changed."""
    if groups is None:
        return False
    if set(page.restricted_to_groups.values_list("pk", flat=True)) == {group.pk for group in groups}:
        return False
    page_set_restrictions(page=page, groups=groups)
    return True
