from django.apps import AppConfig


class SummariesConfig(AppConfig):
    name = "summaries"
    verbose_name = "Summaries"

    def ready(self) -> None:
        from handbook import page_work
        from summaries import services

        page_work.register(
            page_work.PageWork(
                name="summary",
                enqueue=lambda page, queue: services.summary_enqueue(page, queue=queue),
                pending=services.pages_unsummarised,
                run_inline=services.summary_inline,
            )
        )
