from typing import Any

from django.apps import AppConfig
from django.db.models.signals import m2m_changed


class SummariesConfig(AppConfig):
    name = "summaries"
    verbose_name = "Summaries"

    def ready(self) -> None:
        # deferred: app-registry timing, these import models, which only load once the apps are ready
        from handbook import page_work
        from handbook.markdown_import import export_parts
        from handbook.models import Page, Space
        from summaries import services, ticks_io

        page_work.register(
            page_work.PageWork(
                name="summary",
                enqueue=lambda page, queue: services.summary_enqueue(page, queue=queue),
                pending=services.pages_unsummarised,
                run_inline=services.summary_inline,
            )
        )
        # A space export carries the picks of the pages it exports.
        export_parts.register("summary picks", ticks_io.space_export_part)
        # Who reads a ticked page changed: its ticks may teach no more (or again), so the weights every
        # summary is chosen by are fitted again now, not at the next pick.
        m2m_changed.connect(
            _readers_changed, sender=Page.restricted_to_groups.through, dispatch_uid="summaries_page_readers"
        )
        m2m_changed.connect(
            _readers_changed, sender=Space.viewer_groups.through, dispatch_uid="summaries_space_readers"
        )


def _readers_changed(sender: Any, instance: Any, action: str, reverse: bool, pk_set: Any, **_kwargs: Any) -> None:
    # deferred: app-registry timing, as in ready()
    from handbook.models import Page, Space
    from summaries.models import SummaryPick
    from summaries.scorer_fit import refit_enqueue

    if action not in ("post_add", "post_remove", "post_clear"):
        return
    if reverse:  # from the group's side: any page or space it reads may be concerned
        picks = SummaryPick.objects.all()
    elif isinstance(instance, Space):
        picks = SummaryPick.objects.filter(page__space=instance)
    elif isinstance(instance, Page):
        picks = SummaryPick.objects.filter(page=instance)
    else:
        return
    if picks.exists():
        refit_enqueue()
