"""One error hierarchy. Every error says what went wrong, where, and what to do about it."""

from __future__ import annotations


class AuditorError(Exception):
    """Base of all auditor errors; `hint` tells the user what to do next."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if hint is not None:
            self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigError(AuditorError):
    """The audit config is wrong: names the file, line and field."""

    hint = "fix the audit config and run again"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.file, self.line, self.field = file, line, field
        where = file or ""  # no file: a command-line value, a key file or a plugin; no made-up "<config>"
        if line is not None:
            where = f"{where or '<config>'}:{line}"
        prefix = "".join(f"{p}: " for p in (where, field) if p)
        super().__init__(prefix + message, hint=hint)


class UsageError(AuditorError):
    """The command line is wrong (a missing store, an unknown run, name or framework, a path that is not a
    directory): not the config's fault, so it carries no config prefix; exit code 2 like every
    AuditorError."""

    hint = "see `auditor COMMAND --help`"


class EvidenceParseError(AuditorError):
    """A capture could not be read: names the file (or target) and line."""

    hint = "re-collect or fix this evidence file; the rest of the run is kept"

    def __init__(
        self, message: str, *, origin: str, line: int | None = None, hint: str | None = None
    ) -> None:
        self.origin, self.line = origin, line
        where = f"{origin}:{line}" if line is not None else origin
        super().__init__(f"{where}: {message}", hint=hint)


class CollectionError(AuditorError):
    """A target could not be collected (unreachable, auth, timeout, missing permission)."""

    hint = "check reachability and credentials for this target"

    def __init__(
        self, message: str, *, target: str, hint: str | None = None, transient: bool = False
    ) -> None:
        self.target = target
        self.transient = transient
        super().__init__(f"{target}: {message}", hint=hint)


class ReadOnlyViolation(AuditorError):
    """A collector tried to send something outside the read-only allowlist; it never leaves the process."""

    hint = "collectors may only run show/describe/list/get operations"


class StoreError(AuditorError):
    hint = "check the store URL and that the database is reachable"


class EvidenceTamperedError(AuditorError):
    """Verification found a capture or digest that does not match what was sealed."""

    hint = "treat this run's evidence as untrustworthy; re-collect"


class PluginError(AuditorError):
    hint = "check the plugin's entry point and that its package is installed"
