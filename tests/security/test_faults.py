"""Worker faults with real processes, fast version (full counts: make prove)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.security.faults import inconsistent_pages, kill_worker_during_reindex, make_pages, race_edits, wait_idle

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_killed_worker_leaves_no_stale_page(worker, make_space):
    pages = make_pages(make_space("faults"), 12, seed=1)
    report = kill_worker_during_reindex(worker, pages, kills=2, seed=1, heal_timeout=240)
    assert report.tasks == 12
    assert report.inconsistent == []


def test_concurrent_edits_lose_nothing_and_end_consistent(worker, make_space):
    pages = make_pages(make_space("races"), 3, seed=2, size=1)
    report = race_edits(pages, edits=24, threads=4, seed=2, heal_timeout=240)
    assert report.saves == 24
    assert report.revisions_written == 24
    assert report.lost_edits == 0
    assert report.inconsistent == []


def test_redis_killed_during_saves_heals_after_restart(worker, make_space, settings):
    from core import embedded
    from handbook.services import page_save

    pages = make_pages(make_space("redis"), 4, seed=3, size=1)
    assert wait_idle(180) == []
    pid_file = Path(embedded.data_dir()) / "redis" / "redis.pid"
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    time.sleep(0.3)
    for n, page in enumerate(pages):  # every save commits even though nothing can be enqueued
        page_save(page=page, title=page.title, body=page.body + f"\n\nChanged while Redis was down {n}.\n")
    assert inconsistent_pages(), "the index is behind while Redis is down"
    assert embedded.redis_url() == settings.REDIS_URL  # restarted on the same port
    assert wait_idle(240) == []
