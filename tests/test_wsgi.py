"""config/wsgi.py: what the web server process is set up with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_web_process_runs_blas_on_one_thread():  # type: ignore[no-untyped-def]
    # A fresh interpreter, as gunicorn's worker imports the module (the test process has its own).
    code = (
        "import json, config.wsgi\n"
        "from threadpoolctl import threadpool_info\n"
        "print(json.dumps([i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas']))\n"
    )
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "", "OMP_NUM_THREADS": ""}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    threads = json.loads(out.stdout.strip().splitlines()[-1])
    assert threads and set(threads) == {1}
