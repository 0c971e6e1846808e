"""Write the golden set's SHA-256 into the stack file (`rollout.parity.golden.sha256`), changing
nothing else: the same in-place editing, read-back check and atomic replace as the rollout's
weights (`rollout.stack_file`), so the pull request shows the new golden file and its pin together."""

from __future__ import annotations

import copy
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from accelplane.config.loader import PLATFORM_KEY, StackConfig, load_stack_text
from accelplane.config.yaml_source import parse_yaml
from accelplane.errors import InputError
from accelplane.input_files import read_bytes
from accelplane.rollout.stack_file import Rewrite, refusal, scalar_end


def pin_golden(stack: StackConfig, service_name: str, sha256: str) -> Rewrite:
    raw = read_bytes(stack.path, option="--stack-file")
    bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
    text = raw[len(bom):].decode("utf-8")
    old = parse_yaml(text, str(stack.path)).data
    if not isinstance(old, dict) or old.get("config") != stack.config:
        raise refusal(stack, "the file changed while the golden set was recorded; run the command again")
    services = stack.config[PLATFORM_KEY]["kubernetes"]["inference_services"]
    index = next(i for i, service in enumerate(services) if service.get("name") == service_name)
    try:
        tree: Any = YAML(typ="rt").load(text)
        golden = tree["config"][PLATFORM_KEY]["kubernetes"]["inference_services"][index]["rollout"]["parity"]["golden"]
    except (YAMLError, KeyError, IndexError, TypeError) as error:
        raise refusal(stack, f"cannot locate rollout.parity.golden in the file ({type(error).__name__})") from None
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
    expected = copy.deepcopy(old)
    expected["config"][PLATFORM_KEY]["kubernetes"]["inference_services"][index]["rollout"]["parity"]["golden"][
        "sha256"] = sha256
    try:
        written = parse_yaml(new_text, str(stack.path)).data
    except InputError:
        written = None
    if written != expected:
        raise refusal(stack, "the golden set's SHA-256 could not be written in place (an alias or a tag at "
                             f"rollout.parity.golden?); set sha256: {quoted} by hand")
    load_stack_text(new_text, path=str(stack.path), stack=stack.stack)
    return Rewrite(stack.path, bom + new_text.encode("utf-8"), [changed])
