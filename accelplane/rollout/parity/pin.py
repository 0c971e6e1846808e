"""Write the golden set's SHA-256 into a stack file (`rollout.parity.golden.sha256` of a service, or a
migration's `parity.golden.sha256`), changing nothing else: the same in-place editing, read-back check
and atomic replace as the rollout's weights (`rollout.stack_file`), so the pull request shows the new
golden file and its pin together."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from accelplane.config.keys import MIGRATION_KEY
from accelplane.config.loader import PLATFORM_KEY, StackConfig, load_stack_text
from accelplane.config.yaml_source import parse_yaml
from accelplane.errors import InputError
from accelplane.input_files import read_bytes
from accelplane.rollout.stack_file import Rewrite, scalar_end


def pin_golden(stack: StackConfig, service_name: str, sha256: str) -> Rewrite:
    """A service's `rollout.parity.golden.sha256`, the file read back as a valid stack."""
    services = stack.config[PLATFORM_KEY]["kubernetes"]["inference_services"]
    index = next(i for i, service in enumerate(services) if service.get("name") == service_name)
    keys = ["config", PLATFORM_KEY, "kubernetes", "inference_services", index, "rollout", "parity", "golden"]
    return pin_at(stack.path, stack.config, keys, sha256,
                  lambda text: load_stack_text(text, path=str(stack.path), stack=stack.stack))


def pin_migration_golden(path: Path, config: dict[str, Any], sha256: str) -> Rewrite:
    """A migration's `parity.golden.sha256` (its loader re-checks the file when it is next read)."""
    return pin_at(path, config, ["config", MIGRATION_KEY, "parity", "golden"], sha256, lambda _text: None)


def _refusal(path: Path, message: str) -> InputError:
    return InputError.single(f"{message}; nothing written", file=str(path))


def pin_at(path: Path, config: dict[str, Any], keys: list[str | int], sha256: str,
           recheck: Callable[[str], object]) -> Rewrite:
    """The file with `sha256` set in the `golden` mapping at `keys`, checked: its data must be the old data
    with that one value changed, and `recheck` must accept it."""
    raw = read_bytes(path, option="--stack-file")
    bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
    text = raw[len(bom):].decode("utf-8")
    old = parse_yaml(text, str(path)).data
    if not isinstance(old, dict) or old.get("config") != config:
        raise _refusal(path, "the file changed while the golden set was recorded; run the command again")
    where = ".".join(str(key) for key in keys[1:])
    try:
        golden: Any = YAML(typ="rt").load(text)
        for key in keys:
            golden = golden[key]
    except (YAMLError, KeyError, IndexError, TypeError) as error:
        raise _refusal(path, f"cannot locate {where} in the file ({type(error).__name__})") from None
    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    quoted = f'"{sha256}"'
    if "sha256" in golden:
        line, column = golden.lc.value("sha256")
        start = starts[line] + column
        new_text = text[:start] + quoted + text[scalar_end(text, start):]
        changed = line + 1
    elif golden.fa.flow_style():  # `golden: {uri: …}`: the pin joins the same flow mapping
        line, column = golden.lc.value("uri")
        start = starts[line] + column
        end = scalar_end(text, start)
        new_text = text[:end] + f", sha256: {quoted}" + text[end:]
        changed = line + 1
    else:  # a new line under `uri:`, with its indentation
        line, column = golden.lc.key("uri")
        after = starts[line + 1] if line + 1 < len(starts) else len(text)
        new_text = text[:after] + " " * column + f"sha256: {quoted}\n" + text[after:]
        changed = line + 2
    expected: Any = copy.deepcopy(old)
    target = expected
    for key in keys:
        target = target[key]
    target["sha256"] = sha256
    try:
        written = parse_yaml(new_text, str(path)).data
    except InputError:
        written = None
    if written != expected:
        raise _refusal(path, "the golden set's SHA-256 could not be written in place (an alias or a tag at "
                             f"{where}?); set sha256: {quoted} by hand")
    recheck(new_text)
    return Rewrite(path, bom + new_text.encode("utf-8"), [changed])
