"""Reading the files of a Markdown tree without leaving it.

A tree handed to ``import_markdown`` (a checkout, an unpacked archive) may hold symbolic links:
``notes.txt -> /etc/passwd`` would be stored as an attachment, ``docs -> /home`` imported as pages.
So no link is ever followed, whatever it points at (even inside the tree: a link inside today is a
link outside after the next ``git pull``): the walk lists links without entering or reading them,
and every later stat or open goes through ``open_in_tree``, which checks each component of the
path again (the tree may change between the scan and the read), opens the last one with
``O_NOFOLLOW`` and accepts only a regular file.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from django.utils.translation import gettext as _


class OutsideTree(Exception):  # noqa: N818 - a reason to skip a file, reported as such
    """A path of the tree that the import will not read; ``str()`` is the report's reason."""


def link_reason() -> str:
    return _("symbolic link, not followed")


def walk(root: Path, skip_dir: Callable[[PurePosixPath], bool]) -> tuple[list[PurePosixPath], list[PurePosixPath]]:
    """Every regular file under ``root`` and every symbolic link met, as paths relative to it, sorted.

    Folders for which ``skip_dir`` holds are not entered; links are listed, never entered or stat'ed
    through (``DirEntry``'s checks do not follow them)."""
    files: list[PurePosixPath] = []
    links: list[PurePosixPath] = []
    pending = [PurePosixPath()]
    while pending:
        folder = pending.pop()
        with os.scandir(root / folder) as entries:
            for entry in entries:
                rel = folder / entry.name
                if entry.is_symlink():
                    links.append(rel)
                elif entry.is_dir(follow_symlinks=False):
                    if not skip_dir(rel):
                        pending.append(rel)
                elif entry.is_file(follow_symlinks=False):
                    files.append(rel)
    return sorted(files), sorted(links)


def path_in_tree(root: Path, rel: PurePosixPath) -> Path:
    """``root / rel``, once no component of it is a link and it resolves inside ``root``;
    ``OutsideTree`` otherwise. Nothing is opened or read through a link to find out."""
    if rel.is_absolute() or ".." in rel.parts:
        raise OutsideTree(_("path leaves the folder"))
    path = root
    for part in rel.parts:
        path = path / part
        if path.is_symlink():  # lstat: the link itself, not what it points at
            raise OutsideTree(link_reason())
    if not path.resolve().is_relative_to(root.resolve()):
        raise OutsideTree(_("path leaves the folder"))
    return path


def open_in_tree(root: Path, rel: PurePosixPath) -> io.BufferedReader:
    """The regular file ``rel`` of the tree, opened for reading; ``OutsideTree`` for anything else."""
    path = path_in_tree(root, rel)
    # O_NOFOLLOW: a last component swapped for a link since the check fails here; O_NONBLOCK: one
    # swapped for a FIFO does not hang the open (the mode check below then refuses it).
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise OutsideTree(link_reason() if os.path.islink(path) else exc.strerror or str(exc)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OutsideTree(_("not a regular file"))
    return os.fdopen(fd, "rb")
