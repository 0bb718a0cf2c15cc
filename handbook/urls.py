"""The handbook's own routes; the project's root URLs (config/urls.py) mount them with the other apps'.

``page_patterns`` are a page's own actions, mounted under each page's address beside the
comments' and the summary picker's."""

from django.contrib.auth.decorators import login_not_required
from django.urls import URLPattern, URLResolver, path
from django.views.i18n import set_language

from handbook.approvals import views as approval_views
from handbook.attachments import views as attachment_views
from handbook.markdown_import import views as markdown_views
from handbook.translations import views as translation_views
from handbook.views import access, accounts, editing, ops, placing, reading

# Space-level actions start with "_": slugify() never produces a leading
# underscore, so they cannot collide with a page slug.
page_patterns: list[URLPattern | URLResolver] = [
    path("", reading.page_detail, name="page_detail"),
    path("edit/", editing.page_edit, name="page_edit"),
    path("publish/", editing.page_publish, name="page_publish"),
    path("approval/", approval_views.approval_detail, name="approval_detail"),
    path("history/", editing.page_history, name="page_history"),
    path("history/<int:number>/", editing.revision_detail, name="revision_detail"),
    path("history/<int:number>/restore/", editing.revision_restore, name="revision_restore"),
    path("rename/", placing.page_rename, name="page_rename"),
    path("move/", placing.page_move, name="page_move"),
    path("delete/", placing.page_delete, name="page_delete"),
    path("access/", access.page_access, name="page_access"),
    path("attachments/", attachment_views.attachment_upload, name="attachment_upload"),
    path("translations/", translation_views.page_translations, name="page_translations"),
    path("translations/dismiss/", translation_views.translation_dismiss, name="translation_dismiss"),
]

urlpatterns = [
    path("", reading.home, name="home"),
    path("accounts/login/", accounts.login_view, name="login"),
    path("accounts/logout/", accounts.logout_view, name="logout"),
    # The language switcher also works on the login page.
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("healthz", ops.healthz, name="healthz"),
    # Attachments: random ids, the page's permissions checked on every download.
    path("attachments/<uuid:attachment_id>/", attachment_views.attachment_download),
    path(
        "attachments/<uuid:attachment_id>/<str:filename>",
        attachment_views.attachment_download,
        name="attachment_download",
    ),
    path("preview/", editing.markdown_preview, name="markdown_preview"),
    path("spaces/<slug:space_slug>/", reading.space_detail, name="space_detail"),
    path("spaces/<slug:space_slug>/_new/", editing.page_create, name="page_create"),
    path(
        "spaces/<slug:space_slug>/_new/attachments/",
        attachment_views.draft_attachment_upload,
        name="draft_attachment_upload",
    ),
    path("spaces/<slug:space_slug>/_access/", access.space_access, name="space_access"),
    path("spaces/<slug:space_slug>/_approval/", approval_views.space_approval, name="space_approval"),
    path("spaces/<slug:space_slug>/_export/", markdown_views.space_export_zip, name="space_export"),
    path("spaces/<slug:space_slug>/_links/", markdown_views.space_broken_links, name="space_broken_links"),
]
