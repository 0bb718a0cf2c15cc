"""The capacity bench's browser sends a GET again once when the connection closed under it, as
browsers do, and counts it; anything else stays an error the bench reports."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests

from bench.capacity_client import browser_session


@contextmanager
def server(answers: list[bool]) -> Iterator[str]:
    """A loopback server: for each connection in turn, answer 200 (True) or close without a word (False)."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        for answer in answers:
            connection, _ = listener.accept()
            with connection:
                connection.recv(65536)
                if answer:
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        listener.close()


def test_a_get_whose_connection_closed_is_sent_once_more_and_counted() -> None:
    resends: list[int] = []
    with server([False, True]) as url:
        response = browser_session(on_resend=lambda: resends.append(1)).get(url, timeout=10)
    assert (response.status_code, response.text, len(resends)) == (200, "ok", 1)


def test_a_second_close_is_an_error() -> None:
    resends: list[int] = []
    with server([False, False]) as url, pytest.raises(requests.ConnectionError):
        browser_session(on_resend=lambda: resends.append(1)).get(url, timeout=10)
    assert len(resends) == 1


def test_a_post_is_not_sent_again() -> None:
    resends: list[int] = []
    with server([False, True]) as url, pytest.raises(requests.ConnectionError):
        browser_session(on_resend=lambda: resends.append(1)).post(url, data={"a": "b"}, timeout=10)
    assert resends == []


def test_a_refused_connection_is_not_sent_again() -> None:
    resends: list[int] = []
    with socket.create_server(("127.0.0.1", 0)) as taken:
        url = f"http://127.0.0.1:{taken.getsockname()[1]}/"
    with pytest.raises(requests.ConnectionError):
        browser_session(on_resend=lambda: resends.append(1)).get(url, timeout=10)
    assert resends == []
