"""`python tests/e2e/report_crash_driver.py <auditor args>`: the real `auditor` command line, stalling once
while it renders its reports (after the run is sealed): the JSON report written, the next format not yet.
The stall protocol (CRASH_MARK, CRASH_RELEASE, CRASH_STALL_SECONDS, SIGTERM) is crash_driver's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from reports.base import report_registry
from tests.pipeline import crash_driver


def install() -> None:
    cls = type(report_registry().get("json"))
    render = cls.render

    def render_then_stall(self: Any, data: Any, path: Path) -> Any:
        done = render(self, data, path)
        crash_driver.stall()
        return done

    cls.render = render_then_stall  # type: ignore[method-assign]


if __name__ == "__main__":
    install()
    crash_driver.main()
