"""The imported trees as a reader sees them: every image loads, and a screenshot per tree.

After ``bench.import_repos`` has imported the trees, the app runs under gunicorn on
loopback against the same database; Chromium (Playwright, as the browser tests drive it)
signs in, opens every imported page whose text shows an image, and checks that each
``<img>`` of the page loaded (``complete`` and ``naturalWidth > 0``). One page per tree,
the one with the most images, is saved as ``docs/import-<tree>.png``, scrolled to its
first image.

    python -m bench.import_screenshots [--repo 18f-handbook]   # trees already imported
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import common
from bench.load import _free_port, _wait_healthy

DOCS = common.ROOT / "docs"
USERNAME, PASSWORD = "bench-import-reader", "bench-import-reader-pw"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update"]  # fmt: skip
SCREENSHOTS = {"18f-handbook": "import-18f.png", "etalab-guides": "import-etalab.png"}
# Every image of the page, made to load now (not lazily) and awaited: [src, complete, naturalWidth].
_IMAGES_JS = """async () => {
  const images = Array.from(document.querySelectorAll("img"));
  images.forEach((img) => { img.loading = "eager"; });
  await Promise.all(images.map((img) => img.complete ? null : new Promise((done) => {
    img.addEventListener("load", done, {once: true});
    img.addEventListener("error", done, {once: true});
    setTimeout(done, 10000);
  })));
  return images.map((img) => [img.currentSrc || img.src, img.complete, img.naturalWidth]);
}"""


def pages_with_images(space_slug: str) -> list[tuple[str, str]]:
    """(file, address) of the space's published pages whose rendered text has an image."""
    from handbook.markdown import render_markdown
    from handbook.models import Page

    found = []
    for page in Page.objects.filter(space__slug=space_slug).published().order_by("ref"):
        if "<img" in render_markdown(page.body):
            found.append((page.ref.split(":", 2)[2], f"/spaces/{space_slug}/{page.slug}/"))
    return found


def _reader() -> None:
    user = common.bench_user(USERNAME, superuser=True)  # reads every published page
    user.set_password(PASSWORD)
    user.save()


def _start_server(log_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = dict(os.environ, DEBUG="false", PYTHONUNBUFFERED="1")  # the bench database, set by common.setup
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "2",
                "--timeout",
                "120",
                "--access-logfile",
                "-",
            ],  # fmt: skip
            cwd=common.ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, server)
    except Exception:
        common.stop_process_groups(server)
        raise
    return server, url


def _log_in(page: Any, url: str) -> None:
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill(USERNAME)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/")


def _check_tree(browser_page: Any, url: str, repo: str, slug: str) -> dict[str, Any]:
    started = time.perf_counter()
    pages = pages_with_images(slug)
    checked, failures, best = 0, [], None
    for name, address in pages:
        response = browser_page.goto(url + address)
        if response is None or response.status != 200:
            failures.append({"page": name, "src": address, "why": f"HTTP {response.status if response else '?'}"})
            continue
        images = browser_page.evaluate(_IMAGES_JS)
        content = [i for i in images if i[0].startswith(url + "/attachments/")]
        for src, complete, width in images:
            checked += 1
            if not complete or width <= 0:
                failures.append({"page": name, "src": src, "why": "not loaded" if not complete else "naturalWidth 0"})
        if content and (best is None or len(content) > best[2]):
            best = (name, address, len(content))
    screenshot = None
    if best is not None:
        browser_page.goto(url + best[1])
        browser_page.evaluate(_IMAGES_JS)
        first = browser_page.locator(".prose img").first
        first.scroll_into_view_if_needed()
        browser_page.evaluate("() => window.scrollBy(0, -120)")  # the heading above the image, if near
        path = DOCS / SCREENSHOTS[repo]
        browser_page.screenshot(path=str(path))
        screenshot = str(path.relative_to(common.ROOT))
    return {
        "repo": repo,
        "pages_with_images": len(pages),
        "images_checked": checked,
        "images_failing": len(failures),
        "failures": failures,
        "screenshot": screenshot,
        "screenshot_page": best[0] if best else None,
        "browser_s": round(time.perf_counter() - started, 1),
    }


def check_trees(repos: dict[str, str], results_dir: Path = common.RESULTS) -> list[dict[str, Any]]:
    """``repos``: tree name → space slug. The app is started and stopped here."""
    if not shutil.which(CHROMIUM):
        raise SystemExit(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the ORM between Playwright calls
    _reader()
    results_dir.mkdir(parents=True, exist_ok=True)
    server, url = _start_server(results_dir / "import-screenshots-gunicorn.log")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
            context.set_default_timeout(30_000)
            page = context.new_page()
            _log_in(page, url)
            results = [_check_tree(page, url, repo, slug) for repo, slug in repos.items()]
            browser.close()
    finally:
        common.stop_process_groups(server)
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.import_screenshots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", action="append", choices=sorted(SCREENSHOTS), help="default: both")
    args = parser.parse_args(argv)
    common.setup("import_repos", migrate=False)
    results = check_trees({name: f"import-{name}" for name in args.repo or SCREENSHOTS})
    for r in results:
        print(f"{r['repo']}: {r['pages_with_images']} pages with images, {r['images_checked']} images checked, "
              f"{r['images_failing']} failing; screenshot {r['screenshot']} ({r['screenshot_page']})")  # fmt: skip
        for failure in r["failures"]:
            print(f"  failing: {failure}")
    if any(r["images_failing"] for r in results):
        raise SystemExit("some images did not load")


if __name__ == "__main__":
    main()
