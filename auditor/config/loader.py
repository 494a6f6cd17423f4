"""Load `auditor.yaml` with line numbers, so every error names the file, line and field."""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from auditor.config.models import AuditConfig
from auditor.errors import ConfigError
from auditor.safeload import LimitExceeded, Limits, SafeLoader, check_yaml

Path_ = tuple[str | int, ...]
# A config is a page or two of YAML; these bounds refuse alias bombs and runaway nesting before parsing.
CONFIG_LIMITS = Limits(max_depth=32, max_nodes=200_000, max_bytes=4 * 1024 * 1024)
_SECRET_KEYS = {"password", "secret", "token", "api_key", "apikey", "private_key", "secret_access_key"}


def load_config(path: str | Path) -> AuditConfig:
    """Read, validate and return the config; raise ConfigError naming file:line: field on any problem."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            "file not found", file=str(file), hint="pass the path of auditor.yaml with -c"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", file=str(file)) from None
    return parse_config(text, source=str(file), base_dir=file.resolve().parent)


def parse_config(text: str, *, source: str = "<config>", base_dir: Path | None = None) -> AuditConfig:
    data, lines = _load_yaml(text, source)
    if data is None or data == {}:
        raise ConfigError(
            "the config is empty",
            file=source,
            line=1,
            hint="declare at least `intent:` and `sources:` (see examples/lab/auditor.yaml)",
        )
    if not isinstance(data, dict):
        raise ConfigError(
            "expected a mapping at the top level (intent, sources, store, output)", file=source, line=1
        )
    _refuse_inline_secrets(data, lines, source)
    try:
        config = AuditConfig.model_validate(data)
    except ValidationError as exc:
        raise _config_error(exc, lines, source) from None
    return config.model_copy(update={"base_dir": base_dir or Path.cwd()})


def _load_yaml(text: str, source: str) -> tuple[Any, dict[Path_, int]]:
    try:
        check_yaml(text, CONFIG_LIMITS)
    except LimitExceeded as exc:
        raise ConfigError(f"refused: {exc}", file=source, line=exc.line) from None
    except yaml.YAMLError:
        pass  # reported with its line by the full parse below
    except UnicodeError as exc:  # text that is not Unicode (lone surrogates), given by a caller
        raise ConfigError(f"not valid text: {exc}", file=source) from None
    loader: yaml.SafeLoader | None = None
    try:
        loader = SafeLoader(text)
        node = loader.get_single_node()
        lines: dict[Path_, int] = {}
        if node is not None:
            _index_lines(loader, node, (), lines, source)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise ConfigError(f"not valid YAML: {problem}", file=source, line=line) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {exc}", file=source) from None
    except RecursionError:  # belt and braces: the depth bound above should make this unreachable
        raise ConfigError("refused: nested too deeply", file=source) from None
    except ValueError as exc:  # a scalar Python will not convert (an integer of thousands of digits)
        raise ConfigError(f"refused: {exc}", file=source) from None
    finally:
        if loader is not None:
            loader.dispose()
    return data, lines


def _index_lines(
    loader: yaml.SafeLoader, node: yaml.Node, path: Path_, lines: dict[Path_, int], source: str
) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[object] = set()
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in seen:
                raise ConfigError(
                    "duplicate key",
                    file=source,
                    line=key_node.start_mark.line + 1,
                    field=_dotted((*path, key)),
                )
            seen.add(key)
            child = (*path, key if isinstance(key, str | int) else str(key))
            lines[child] = key_node.start_mark.line + 1
            _index_lines(loader, value_node, child, lines, source)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[(*path, i)] = item.start_mark.line + 1
            _index_lines(loader, item, (*path, i), lines, source)


def _dotted(path: typing.Sequence[object]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _line_for(path: Path_, lines: dict[Path_, int]) -> int | None:
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _refuse_inline_secrets(data: Any, lines: dict[Path_, int], source: str, path: Path_ = ()) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            child = (*path, key)
            if isinstance(key, str) and key.lower() in _SECRET_KEYS and isinstance(value, str | int):
                raise ConfigError(
                    "secrets never go in this file",
                    file=source,
                    line=_line_for(child, lines),
                    field=_dotted(child),
                    hint="reference them: password_env, password_file, key_file, a profile or a kubeconfig",
                )
            _refuse_inline_secrets(value, lines, source, child)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            _refuse_inline_secrets(item, lines, source, (*path, i))


def _config_error(exc: ValidationError, lines: dict[Path_, int], source: str) -> ConfigError:
    messages: list[ConfigError] = []
    for err in exc.errors():
        loc: Path_ = tuple(p for p in err["loc"] if isinstance(p, str | int))
        line = _line_for(loc, lines)
        if err["type"] == "extra_forbidden":
            allowed = _allowed_keys(AuditConfig, loc[:-1])
            expected = f"expected one of: {', '.join(allowed)}" if allowed else "not expected here"
            messages.append(
                ConfigError(f"unknown key; {expected}", file=source, line=line, field=_dotted(loc))
            )
            continue
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = "required field is missing"
        elif "input" in err and not isinstance(err["input"], dict | list):
            msg = f"{msg} (got {err['input']!r})"
        messages.append(ConfigError(msg, file=source, line=line, field=_dotted(loc)))
    messages.sort(key=lambda e: e.line or 0)
    first = messages[0]
    first.all_errors = messages  # type: ignore[attr-defined]
    return first


def _allowed_keys(model: type[BaseModel], loc: Path_) -> list[str]:
    """Walk the model along `loc` and list the keys allowed at the end of it."""
    current: object = model
    for part in loc:
        current = _unwrap(current, part)
        if current is None:
            return []
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [n for n, f in current.model_fields.items() if not f.exclude]
    return []


def _unwrap(tp: object, part: str | int) -> object:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        field = tp.model_fields.get(str(part))
        return _strip_optional(field.annotation) if field else None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (list, tuple) and isinstance(part, int) and args:
        return _strip_optional(args[0])
    if origin is dict and args:
        return _strip_optional(args[1])
    return None


def _strip_optional(tp: object) -> object:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if len(args) == 1 else tp
    return tp
