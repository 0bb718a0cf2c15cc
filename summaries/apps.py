from django.apps import AppConfig


class SummariesConfig(AppConfig):
    name = "summaries"
    verbose_name = "Summaries"

    def ready(self) -> None:
        # deferred: app-registry timing, these import models, which only load once the apps are ready
        from handbook import page_work
        from handbook.markdown_import import export_parts
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
