"""Import the two real Markdown handbooks of ../shared/repos and check the result.

For each tree (18F handbook: Eleventy; etalab guides: VuePress): a fresh import
(wall time, peak memory, pages, attachments, broken links, skipped files), a
second run that must write no revision, and an automatic check that no raw
generator markup (Liquid/Nunjucks tags, Hugo shortcodes, Vue components, HTML
comments or tags, front matter, VuePress containers) is left in any rendered
page outside code. Runs on its own database of the bench instance; pages are
queued for indexing (no worker needed: the import does not wait for embeddings).
Then ``bench.import_screenshots`` opens every imported page with images in Chromium
(the app under gunicorn), checks that each image loads, and saves one screenshot per
tree under docs/ (``--no-browser`` skips it).

    python -m bench.import_repos [--repo 18f-handbook] [--examples 8] [--no-browser]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from bench import common

REPOS = {"18f-handbook": "en", "etalab-guides": "fr"}
# Raw markup a reader must never see, looked for in the rendered HTML with code blocks and spans removed.
RAW_MARKUP = re.compile(
    r"\{%|%\}|\{\{|\}\}|&lt;!--|^\s*:::|&lt;/?(?:[A-Z][\w-]*|div|span|a|img|br|table|tr|td|th|p|strong|em|details|"
    r"summary|button|iframe|script|style|sup|ul|ol|li|h[1-6])\b|^---\s*$\s*^\w+:",
    re.MULTILINE,
)
_CODE = re.compile(r"<pre>.*?</pre>|<code[^>]*>.*?</code>", re.DOTALL)


def _wipe(space_slug: str) -> None:
    from handbook.attachment_models import Attachment
    from handbook.models import Page, Space

    for attachment in Attachment.objects.filter(page__space__slug=space_slug):
        attachment.file.delete(save=False)
    Page.objects.filter(space__slug=space_slug).update(parent=None, published_revision=None)
    Page.objects.filter(space__slug=space_slug).delete()
    Space.objects.filter(slug=space_slug).delete()


def raw_markup_found(space_slug: str) -> list[tuple[str, str]]:
    from handbook.markdown import render_markdown
    from handbook.models import Page

    found = []
    for page in Page.objects.filter(space__slug=space_slug).published():
        html = _CODE.sub("", render_markdown(page.body))
        for match in RAW_MARKUP.finditer(html):
            found.append((page.ref.split(":", 2)[2], html[max(0, match.start() - 40) : match.end() + 40]))
    return found


def run_repo(name: str, examples: int) -> dict[str, object]:
    from handbook.attachment_models import Attachment
    from handbook.markdown_import.importer import markdown_tree_import
    from handbook.models import Page, Revision
    from handbook.services import space_create

    root = common.SHARED / "repos" / name
    slug = f"import-{name}"
    _wipe(slug)
    space = space_create(slug=slug, title=name)
    markdown_files = sum(1 for p in root.rglob("*.md") if "node_modules" not in p.parts)
    started = time.perf_counter()
    report = markdown_tree_import(root, space=space)
    wall = time.perf_counter() - started
    peak = common.peak_rss_mb()
    revisions = Revision.objects.filter(page__space=space).count()
    started = time.perf_counter()
    again = markdown_tree_import(root, space=space)
    resync = time.perf_counter() - started
    new_revisions = Revision.objects.filter(page__space=space).count() - revisions
    raw = raw_markup_found(slug)
    result = {
        "repo": name,
        "markdown_files": markdown_files,
        "pages": Page.objects.filter(space=space).published().count(),
        "created": len(report.created),
        "attachments": Attachment.objects.filter(page__space=space).count(),
        "broken_links": len(report.broken_links),
        "broken_link_examples": report.broken_links[:examples],
        "skipped": len(report.skipped),
        "skipped_examples": report.skipped[:examples],
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(peak, 1),
        "resync_wall_s": round(resync, 2),
        "resync_new_revisions": new_revisions,
        "resync_summary": again.summary(),
        "raw_markup_pages": len({p for p, _ in raw}),
        "raw_markup_examples": raw[:examples],
    }
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.import_repos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", action="append", choices=sorted(REPOS), help="default: both")
    parser.add_argument("--examples", type=int, default=8)
    parser.add_argument("--no-browser", action="store_true", help="skip the image check and screenshots")
    args = parser.parse_args(argv)
    common.setup("import_repos")
    common.RESULTS.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results = [run_repo(name, args.examples) for name in args.repo or REPOS]
    if not args.no_browser:
        from bench.import_screenshots import check_trees

        browsed = check_trees({r["repo"]: f"import-{r['repo']}" for r in results})  # type: ignore[misc]
        for r, b in zip(results, browsed, strict=True):
            r.update({k: b[k] for k in ("pages_with_images", "images_checked", "images_failing", "screenshot")})
            r["image_failure_examples"] = b["failures"][: args.examples]
    total_wall = time.perf_counter() - started
    print(
        "| repo | .md files | pages | attachments | broken links | skipped | wall s | peak RSS MB | re-run s | "
        "re-run revisions | pages with raw markup |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r['repo']} | {r['markdown_files']} | {r['pages']} | {r['attachments']} | {r['broken_links']} | "
            f"{r['skipped']} | {r['wall_s']} | {r['peak_rss_mb']} | {r['resync_wall_s']} | "
            f"{r['resync_new_revisions']} | {r['raw_markup_pages']} |"
        )
    if not args.no_browser:
        print("\n| repo | pages with images | images checked | images failing | screenshot |\n|---|---:|---:|---:|---|")
        for r in results:
            print(
                f"| {r['repo']} | {r['pages_with_images']} | {r['images_checked']} | {r['images_failing']} | "
                f"{r['screenshot']} |"
            )
    print(f"\ntotal wall time {total_wall:.1f} s, peak RSS {common.peak_rss_mb():.1f} MB (this process)")
    for r in results:
        for kind in ("broken_link_examples", "skipped_examples", "raw_markup_examples", "image_failure_examples"):
            for example in r.get(kind, []):  # type: ignore[attr-defined]
                print(f"{r['repo']} {kind[:-9]}: {example}")
    Path(common.RESULTS / "import_repos.json").write_text(json.dumps(results, indent=2, ensure_ascii=False))
    failed = [
        r["repo"] for r in results if r["raw_markup_pages"] or r["resync_new_revisions"] or r.get("images_failing")
    ]
    if failed:
        message = "raw markup left, a re-run wrote revisions or images failed to load"
        raise SystemExit(f"{message}: {', '.join(failed)}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
