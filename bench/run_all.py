"""`make bench`: runs every bench/bench_*.py and rewrites docs/PERFORMANCE.md with the figures.

`make bench ONLY=baselines` (BENCH_ONLY) runs the ones whose name contains the word. Either way only
the sections measured are replaced (by `## ` heading): a hand-written section stays. The benchmarks named in `ALSO` run
too, though their files are not called bench_*.py (`make bench ONLY=bots`: the Fill or Bust bots).
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEADER = """# Performance

Figures from `make bench` (the scripts in `bench/`), measured on the 2-core development machine
with client and server on loopback. Targets: docs/DESIGN.md §7. Each section names the command that
reproduces it. Regenerated {when}.
"""


ALSO = ("fill_or_bust_bots",)  # bench/fill_or_bust_bots.py: the bots' tournament (issue 18)


def main() -> None:
    only = os.environ.get("BENCH_ONLY", "")
    stems = [path.stem for path in (ROOT / "bench").glob("bench_*.py")] + list(ALSO)
    modules = sorted(stem for stem in stems if only in stem)
    sections = []
    for name in modules:
        started = time.monotonic()
        print(f"--- {name}", flush=True)
        section = importlib.import_module(f"bench.{name}").run()
        print(section, flush=True)
        print(f"({time.monotonic() - started:.0f} s)", flush=True)
        sections.append(section.strip() + "\n")
    path = ROOT / "docs" / "PERFORMANCE.md"
    if path.exists():  # sections no benchmark writes (hand-written findings) stay where they are
        sections = merge_sections(path.read_text(), sections)
    text = HEADER.format(when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())) + "\n" + "\n".join(sections)
    path.write_text(text)
    print("Wrote docs/PERFORMANCE.md")


def merge_sections(document: str, fresh: list[str]) -> list[str]:
    """The document's sections, with those just measured replaced (matched by their heading)."""
    old = ["## " + part for part in document.split("\n## ")[1:]]
    by_heading = {section.splitlines()[0]: section for section in fresh}
    merged = [by_heading.pop(section.splitlines()[0], section.strip() + "\n") for section in old]
    return merged + list(by_heading.values())


if __name__ == "__main__":
    main()
