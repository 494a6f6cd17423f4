"""ntc-templates' TextFSM parsing with each template read and compiled once, not once per capture.

`ntc_templates.parse.parse_output` builds a CliTable, opens and compiles the template and copies every
record through a TextTable on each call (~50 ms for a `show ip access-lists`, most of it not parsing).
Here the index lookup and the template text are cached per (platform, command), and each thread keeps
its own compiled `TextFSM` (a TextFSM holds parse state, so one object must not serve two threads at
once); the records are the same dicts parse_output returns (header names lower-cased). A command whose
index row joins several templates goes through parse_output itself, so its merge rules stay the library's.
"""

from __future__ import annotations

import io
import os
import threading
from typing import Any

import ntc_templates
from ntc_templates.parse import ParsingException, parse_output
from textfsm import TextFSM, clitable

_Key = tuple[str, str, str]  # template dir, platform, command


class TemplateCache:
    """Template lookups and compiled state machines, shared by every normalizer thread of a process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sources: dict[_Key, str | None] = {}  # None: several templates, parse_output decides
        self._local = threading.local()

    def parse(self, platform: str, command: str, text: str) -> list[dict[str, Any]]:
        """The records of `text` as parse_output(platform, command, text) gives them."""
        key = (template_dir(), platform, command)
        source = self._source(key)
        if source is None:
            return list(parse_output(platform=platform, command=command, data=text))
        machines: dict[_Key, TextFSM] = self._local.__dict__.setdefault("machines", {})
        fsm = machines.get(key)
        if fsm is None:
            fsm = machines[key] = TextFSM(io.StringIO(source))
        else:
            fsm.Reset()
        header = [h.lower() for h in fsm.header]
        return [dict(zip(header, row, strict=True)) for row in fsm.ParseText(text)]

    def _source(self, key: _Key) -> str | None:
        with self._lock:
            if key in self._sources:
                return self._sources[key]
            directory, platform, command = key
            table = clitable.CliTable("index", directory)  # the parsed index is cached by textfsm itself
            attributes = {"Command": command, "Platform": platform}
            row = table.index.GetRowMatch(attributes)
            if not row:  # worded as parse_output words it
                raise ParsingException(
                    f'Unable to parse command "{command}" on platform {platform} - '
                    f'No template found for attributes: "{attributes}"'
                )
            names = str(table.index.index[row]["Template"]).split(":")
            source = None
            if len(names) == 1:
                with open(os.path.join(directory, names[0]), encoding="utf-8") as handle:
                    source = handle.read()
            self._sources[key] = source
            return source


def template_dir() -> str:
    """Where ntc-templates keeps its index and templates (NTC_TEMPLATES_DIR overrides, as in the library)."""
    bundled = os.path.join(os.path.dirname(ntc_templates.__file__), "templates")
    return os.environ.get("NTC_TEMPLATES_DIR") or bundled


TEMPLATES = TemplateCache()
