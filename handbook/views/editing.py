"""Editing: create, edit with preview, drafts and publishing, history. Rename, move, delete: ``placing``.

Every view loads its page through ``editable_page`` / ``editable_space``
(permission-filtered querysets) and then acts on that same object.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from handbook import services
from handbook.approvals import selectors as approvals
from handbook.approvals.services import page_create_submit, page_submit, revision_submit
from handbook.attachments.editor import upload_from_editor, upload_from_new_page
from handbook.attachments.services import attachments_claim, draft_token_new
from handbook.diff import side_by_side
from handbook.forms import PageCreateForm, PageEditForm, PreviewForm
from handbook.lookups import editable_page, editable_space
from handbook.markdown import render_markdown
from handbook.models import Page, Revision
from handbook.page_templates import StartFromTemplateForm, TemplateFlagForm, page_set_template
from handbook.review.forms import PageReviewForm


def _rendered(body: str) -> str:
    # render_markdown's output is sanitised by an nh3 allow-list: the one
    # thing we ever mark safe.
    return mark_safe(render_markdown(body))  # noqa: S308


def _latest(page: Page) -> Revision | None:
    return page.revisions.order_by("-number").first()


def after_save(page: Page) -> HttpResponse:
    # A never-published page has no public URL yet: keep the editor in the editor.
    if page.is_published:
        return redirect(page.get_absolute_url())
    return redirect("page_edit", space_slug=page.space.slug, page_slug=page.slug)


@login_required
@require_http_methods(["GET", "POST"])
def page_create(request: HttpRequest, space_slug: str) -> HttpResponse:
    space = editable_space(request.user, space_slug)
    # "Start from template" is a GET form: the chosen template's text fills the new page's.
    start = StartFromTemplateForm(request.GET or None, space=space, user=request.user)
    template = start.cleaned_data["template"] if request.method == "GET" and start.is_valid() else None
    initial = {"body": template.body, "language": template.language} if template is not None else {}
    initial["draft_token"] = draft_token_new()
    form = PageCreateForm(request.POST or None, space=space, user=request.user, initial=initial)
    flag = TemplateFlagForm(request.POST or None)
    preview = None
    if request.method == "POST" and form.is_valid():
        action = request.POST.get("action", "draft")
        if action == "preview":
            preview = _rendered(form.cleaned_data["body"])
        elif action == "upload":  # the file field without JavaScript: the files wait for the page
            form = upload_from_new_page(request, space, form)
        else:
            page, approval = page_create_submit(
                space=space,
                title=form.cleaned_data["title"],
                body=form.cleaned_data["body"],
                language=form.cleaned_data["language"],
                author=request.user,
                publish=action == "publish",
            )
            # The files pasted before this first save become the page's.
            attachments_claim(page=page, draft_token=form.cleaned_data["draft_token"], uploaded_by=request.user)
            if form.cleaned_data["parent"] is not None:
                services.page_set_parent(page=page, parent=form.cleaned_data["parent"])
            if flag.is_valid() and flag.cleaned_data["is_template"]:
                page_set_template(page=page, is_template=True)
            if approval is not None:
                messages.success(request, _("Sent for review: readers will see the page once a reviewer approves it."))
            else:
                messages.success(request, _("Page published.") if page.is_published else _("Draft saved."))
            return after_save(page)
    if preview is None:  # the preview pane starts with the text being written (a template's, say)
        preview = _rendered(form["body"].value() or "")
    context = {
        "space": space,
        "form": form,
        "preview": preview,
        "to_review": approvals.needs_approval(request.user, space),
        "start": start,
        "flag": flag,
    }
    return render(request, "handbook/page_create.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def page_edit(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    page = editable_page(request.user, space_slug, page_slug)
    latest = _latest(page)
    if request.method != "POST":
        form = PageEditForm(
            initial={
                # The page's own title when nothing newer than the published text is
                # pending: a rename changes it without writing a revision.
                "title": latest.title if latest and latest.pk != page.published_revision_id else page.title,
                "body": latest.body if latest else page.body,
                "base_number": latest.number if latest else 0,
            }
        )
        return _edit_page(request, page, form, latest, PageReviewForm(page=page))

    form = PageEditForm(request.POST)
    # A form without the review fields (the edit-conflict page) leaves the page's review settings as they are.
    review = PageReviewForm(request.POST, page=page) if "review_by" in request.POST else None
    if not form.is_valid() or (review is not None and not review.is_valid()):
        return _edit_page(request, page, form, latest, review, status=400)
    action = request.POST.get("action", "draft")
    # The template box is a page setting, kept on any save; a form without it (the conflict page) leaves it.
    if action in ("draft", "publish") and "tpl-shown" in request.POST:
        page_set_template(page=page, is_template=bool(request.POST.get("tpl-is_template")))
    if action == "preview":
        return _edit_page(request, page, form, latest, review, preview=_rendered(form.cleaned_data["body"]))
    if action == "upload":  # the file field without JavaScript: nothing is saved, the links join the text
        return _edit_page(request, page, upload_from_editor(request, page, form), latest, review)
    save = {
        "page": page,
        "title": form.cleaned_data["title"],
        "body": form.cleaned_data["body"],
        "author": request.user,
        "publish": action == "publish",  # or ask for approval, where the space requires it
        "base_number": form.cleaned_data["base_number"] or None,
        "note": form.cleaned_data["note"],
    }
    try:
        submitted = page_submit(review=None if review is None else review.review_choice(), **save)
    except services.EditConflict as conflict:
        return _conflict(request, page, conflict, form.cleaned_data["note"])
    result, reviewed = submitted.result, submitted.reviewed
    if submitted.request is not None:
        messages.success(request, _("Sent for review: readers keep the published text until a reviewer approves it."))
    elif result.revision is None:  # checked first: an untouched published page is not "Published." again
        messages.info(request, _("Nothing changed."))
    elif result.published:
        messages.success(request, _("Published."))
    else:
        messages.success(request, _("Draft saved as revision %(number)s.") % {"number": result.revision.number})
    if reviewed:
        messages.success(request, _("Marked as reviewed."))
    elif review is not None and review.cleaned_data["mark_reviewed"] and submitted.request is None:
        messages.info(request, _("Not marked as reviewed: a page is marked reviewed when it is published."))
    return after_save(result.page)


def _edit_page(
    request: HttpRequest,
    page: Page,
    form: PageEditForm,
    latest: Revision | None,
    review: PageReviewForm | None,
    *,
    preview: str | None = None,
    status: int = 200,
) -> HttpResponse:
    if preview is None:  # the preview pane starts with the text being edited
        preview = _rendered(form["body"].value() or "")
    context = {
        "page": page,
        "space": page.space,
        "form": form,
        "review": review or PageReviewForm(page=page),
        "latest": latest,
        "preview": preview,
        "approval": approvals.latest_request(page),
        "flag": TemplateFlagForm(initial={"is_template": page.is_template}),
        "to_review": approvals.needs_approval(request.user, page.space, page),
    }
    return render(request, "handbook/page_edit.html", context, status=status)


def _conflict(request: HttpRequest, page: Page, conflict: services.EditConflict, note: str) -> HttpResponse:
    """Someone saved in between: show both texts and keep the editor's own text in the form.

    The form now carries the latest revision as its base, so submitting it
    again is a deliberate choice to replace their version with yours.
    """
    form = PageEditForm(
        initial={
            "title": conflict.yours_title,
            "body": conflict.yours_body,
            "note": note,
            "base_number": conflict.latest.number,
        }
    )
    return render(
        request,
        "handbook/page_conflict.html",
        {
            "page": page,
            "space": page.space,
            "form": form,
            "theirs": conflict.latest,
            "yours_title": conflict.yours_title,
            "yours_body": conflict.yours_body,
            "diff": side_by_side(conflict.latest.body, conflict.yours_body),
            "old_label": _("Theirs (revision %(number)s)") % {"number": conflict.latest.number},
            "new_label": _("Yours"),
        },
        status=409,
    )


@login_required
@require_POST
def markdown_preview(request: HttpRequest) -> HttpResponse:
    """Live preview for the editor (htmx): rendered, sanitised Markdown; no data is read."""
    form = PreviewForm(request.POST)
    body = form.cleaned_data["body"] if form.is_valid() else ""
    return render(request, "handbook/_preview.html", {"preview": _rendered(body)})


@login_required
@require_POST
def page_publish(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    page = editable_page(request.user, space_slug, page_slug)
    number = request.POST.get("number", "")
    revision = get_object_or_404(page.revisions, number=int(number) if number.isdigit() else 0)
    revision, approval = revision_submit(page=page, revision=revision, author=request.user)
    if approval is not None:
        messages.success(request, _("Revision %(number)s sent for review.") % {"number": revision.number})
        return redirect("approval_detail", space_slug=page.space.slug, page_slug=page.slug)
    messages.success(request, _("Revision %(number)s published.") % {"number": revision.number})
    return redirect(page.get_absolute_url())


def _label_revisions(page: Page, revisions: list[Revision]) -> list[Revision]:
    """Say what each revision is to readers: the published one, a draft saved after it (not yet
    published: readers do not see it), or an earlier text."""
    published = page.published_revision
    for revision in revisions:
        if published is not None and revision.pk == published.pk:
            revision.state = "published"
        elif published is None or revision.number > published.number:
            revision.state = "draft"
        else:
            revision.state = "earlier"
    return revisions


def _number(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


@login_required
@require_GET
def page_history(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    page = editable_page(request.user, space_slug, page_slug)
    # The compare form (two radio columns) lands here: the older of the two on the left.
    first, second = _number(request.GET.get("from")), _number(request.GET.get("to"))
    if first is not None and second is not None:
        older, newer = sorted((first, second))
        where = {"space_slug": page.space.slug, "page_slug": page.slug, "number": newer}
        url = reverse("revision_detail", kwargs=where)
        return redirect(f"{url}?{urlencode({'against': older})}")
    revisions = _label_revisions(page, list(page.revisions.select_related("author").order_by("-number")))
    return render(
        request,
        "handbook/page_history.html",
        {
            "page": page,
            "space": page.space,
            "revisions": revisions,
            # Compare the two newest by default: what the last save changed.
            "compare_to": revisions[0].number if revisions else None,
            "compare_from": revisions[1].number if len(revisions) > 1 else None,
        },
    )


@login_required
@require_GET
def revision_detail(request: HttpRequest, space_slug: str, page_slug: str, number: int) -> HttpResponse:
    page = editable_page(request.user, space_slug, page_slug)
    revision = get_object_or_404(page.revisions.select_related("author"), number=number)
    against = _number(request.GET.get("against"))
    base = page.revisions.filter(number=against).first() if against is not None and against != number else None
    previous = base or page.revisions.filter(number__lt=number).order_by("-number").first()
    _label_revisions(page, [r for r in (revision, previous) if r is not None])
    return render(
        request,
        "handbook/revision.html",
        {
            "page": page,
            "space": page.space,
            "revision": revision,
            "previous": previous,
            "chosen_base": base is not None,
            "title_changed": previous is not None and previous.title != revision.title,
            "is_latest": not page.revisions.filter(number__gt=number).exists(),
            "diff": side_by_side(previous.body if previous else "", revision.body),
            "old_label": _("Revision %(number)s") % {"number": previous.number} if previous else _("Empty page"),
            "new_label": _("Revision %(number)s") % {"number": revision.number},
            "rendered": _rendered(revision.body),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def revision_restore(request: HttpRequest, space_slug: str, page_slug: str, number: int) -> HttpResponse:
    """GET explains what restoring does (it publishes) and shows what readers will see change;
    POST restores."""
    page = editable_page(request.user, space_slug, page_slug)
    revision = get_object_or_404(page.revisions.select_related("author"), number=number)
    if request.method == "POST":
        restored, approval = revision_submit(page=page, revision=revision, author=request.user, restore=True)
        if approval is not None:
            messages.success(
                request,
                _("Revision %(old)s restored as revision %(new)s and sent for review.")
                % {"old": revision.number, "new": restored.number},
            )
            return redirect("approval_detail", space_slug=page.space.slug, page_slug=page.slug)
        messages.success(
            request,
            _("Revision %(old)s restored and published as revision %(new)s.")
            % {"old": revision.number, "new": restored.number},
        )
        return redirect("page_history", space_slug=page.space.slug, page_slug=page.slug)
    published = page.published_revision
    latest = _latest(page)
    return render(
        request,
        "handbook/revision_restore.html",
        {
            "page": page,
            "space": page.space,
            "revision": revision,
            "published": published,
            "next_number": (latest.number if latest else 0) + 1,
            # A draft newer than the published text stops being the latest: it stays in the history.
            "pending_draft": latest if latest and (published is None or latest.number > published.number) else None,
            "diff": side_by_side(published.body if published else "", revision.body),
            "old_label": _("Published now (revision %(number)s)") % {"number": published.number}
            if published
            else _("Not published"),
            "new_label": _("After restoring (text of revision %(number)s)") % {"number": revision.number},
        },
    )
