"""Coverage-guided fuzzing of one normalizer with atheris (libFuzzer), from the seeds of tests/fuzz.

    pip install atheris
    python benchmarks/fuzz_atheris.py FORMAT [libFuzzer flags, e.g. -max_total_time=300 -rss_limit_mb=2048]
    python benchmarks/fuzz_atheris.py junos.config -max_total_time=120

Where hypothesis (tests/fuzz) mutates blindly, libFuzzer keeps the inputs that reach new code, so it
digs into a parser's branches. The contract is the same: a NormalizeResult of facts and located
problems, never an exception (an exception stops the run and libFuzzer writes the input to
crash-*), and no input slower than -timeout (default here 10 s; a slow input is written to timeout-*).
The seed files are the starting corpus. Not a test: run it for minutes on the parser you change.
"""

from __future__ import annotations

import logging
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import atheris  # type: ignore[import-untyped,import-not-found,unused-ignore]  # optional dependency

from tests.fuzz.harness import check_result, registry
from tests.fuzz.seeds import GENERATED, SEEDS, Seed


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        raise SystemExit(__doc__)
    fmt = sys.argv[1]
    logging.disable(logging.CRITICAL)
    if fmt in GENERATED:
        path, build = GENERATED[fmt]
        seeds = [(Seed(fmt, path, {"platform": "eos"}), build())]
    else:
        seeds = [(s, s.content()) for s in SEEDS if s.format == fmt]
    if not seeds:
        raise SystemExit(f"no seed for {fmt!r}; known: {', '.join(sorted({s.format for s in SEEDS}))}")
    seed = seeds[0][0]
    # The normalizer and the parsers it imports (lazily, on first use) are instrumented: their branches
    # are the coverage that guides libFuzzer.
    with atheris.instrument_imports(include=["collectors", "textfsm", "ruamel", "ttp"]):
        normalize = registry().get(fmt)
        normalize(seed.capture(seeds[0][1]))
    corpus = Path(tempfile.mkdtemp(prefix=f"atheris-{fmt}-"))
    for i, (_, content) in enumerate(seeds):
        (corpus / f"seed{i}").write_bytes(content)

    def one_input(data: bytes) -> None:
        check_result(normalize(seed.capture(data)), fmt)

    flags = [a for a in sys.argv[2:] if a.startswith("-")]
    if not any(f.startswith("-timeout=") for f in flags):
        flags.append("-timeout=10")
    atheris.Setup([sys.argv[0], *flags, str(corpus)], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
