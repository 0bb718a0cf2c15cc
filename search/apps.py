from django.apps import AppConfig
from django.db import transaction

from core.queues import enqueue
from handbook import page_work
from handbook.markdown_import import export_parts


class SearchConfig(AppConfig):
    name = "search"
    verbose_name = "Search index"

    def ready(self) -> None:
        # deferred: these modules import models, which the app registry is not ready for at import
        from search import services
        from search.verified import digest, transfer
        from search.verified.services import answers_changed

        page_work.register(
            page_work.PageWork(
                name="index",
                enqueue=lambda page, queue: services.index_enqueue_page(page, queue=queue),
                pending=services.pages_not_indexed,
                run_inline=services.index_page_inline,
                # The word-translation vocabulary follows a corpus load (queued behind its indexing).
                after_bulk=services.lexicon_enqueue,
            )
        )
        # Ask's answer-unit vectors: queued by the page's reindex once its chunks are embedded.
        page_work.register(
            page_work.PageWork(
                name="answer units",
                enqueue=lambda page, queue: None,
                pending=services.pages_without_units,
                run_inline=services.units_embed_inline,
            )
        )
        # Built from many pages at once: what --wait and `manage.py ready` wait for after the pages.
        for name, bring_up_to_date in (
            ("keyword statistics", services.term_statistics_up_to_date),
            ("vocabulary", services.lexicon_up_to_date),
            ("language means", services.language_means_up_to_date),
        ):
            page_work.register_derived(page_work.Derived(name=name, bring_up_to_date=bring_up_to_date))
        # Owners hear of verified answers their page changed under, in the review digest.
        digest.register()
        # A space export carries the space's verified answers (those its exporter may read).
        export_parts.register("verified answers", transfer.space_export_part)
        # Ask's quote ranker learns from verified answers: refitted off the request once they change.
        answers_changed.connect(_refit_quote_ranker, dispatch_uid="refit_quote_ranker")


def _refit_quote_ranker(**_kwargs: object) -> None:
    transaction.on_commit(lambda: enqueue("search.tasks.refit_quote_ranker"))
