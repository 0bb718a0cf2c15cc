"""Admins read every summary scorer fit with its report; nobody edits one by hand."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from summaries.models import SummaryScorerFit

pytestmark = pytest.mark.django_db


def test_an_admin_reads_the_fit_report_and_cannot_change_it(make_user) -> None:
    fit = SummaryScorerFit.objects.create(
        weights={"coef": {"figures": 1.5}, "intercept": -2.0},
        report={"pages": 23, "held_out_f1": {"extractive": 0.5, "shipped": 0.55, "learnt": 0.66}},
        in_use=True,
    )
    client = Client()
    client.force_login(make_user("root", superuser=True))
    listing = client.get(reverse("admin:summaries_summaryscorerfit_changelist")).content.decode()
    assert "0.5 / 0.55 / 0.66" in listing
    url = reverse("admin:summaries_summaryscorerfit_change", args=[fit.pk])
    detail = client.get(url).content.decode()
    assert "&quot;pages&quot;: 23" in detail and "&quot;figures&quot;: 1.5" in detail
    client.post(url, {"in_use": ""})
    fit.refresh_from_db()
    assert fit.in_use
    assert client.get(reverse("admin:summaries_summaryscorerfit_add")).status_code == 403
