"""/healthz for load balancers and monitors: no login, no secrets, just ok/why."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from handbook.health import check_database, check_redis, check_worker


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {}
    for name, check in (("database", check_database), ("redis", check_redis), ("worker", check_worker)):
        ok, detail = check()
        checks[name] = {"ok": ok, "detail": detail}
    # A missing worker degrades freshness (indexing waits) but the site still
    # serves reads and searches, so it alone does not fail the probe.
    healthy = checks["database"]["ok"] and checks["redis"]["ok"]
    return JsonResponse(checks, status=200 if healthy else 503)
