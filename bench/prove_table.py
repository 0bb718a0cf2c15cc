"""Print the figures recorded by the full proofs (bench/results/prove.json) as a table."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "prove.json"


def main() -> None:
    if not RESULTS.exists():
        print("no figures recorded")
        return
    data = json.loads(RESULTS.read_text())
    print("| proof | figures |\n|---|---|")
    for name, figures in data.items():
        print(f"| {name} | " + ", ".join(f"{k}: {v}" for k, v in figures.items()) + " |")


if __name__ == "__main__":
    main()
