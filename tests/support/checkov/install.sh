#!/usr/bin/env bash
# The peer scanner the pod-hardening tests run (tests/k8s/test_checkov_peer.py): checkov, pinned with
# everything it pulls in (requirements.txt beside this file), in its own virtual environment under
# tests/.cache/checkov, because its pins clash with the project's. Idempotent: an environment that
# already holds the pinned checkov is kept.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)/.cache/checkov"
wanted="$(grep -E '^checkov==' "$here/requirements.txt" | cut -d= -f3)"
# The installed version from its metadata: `checkov --version` imports checkov (4 s on 2 cores, paid by
# every `make test`).
installed="$("$root/bin/python" -c 'import importlib.metadata as m; print(m.version("checkov"))' 2>/dev/null || true)"
if [ -x "$root/bin/checkov" ] && [ "$installed" = "$wanted" ]; then
  exit 0
fi
python="${PYTHON:-$("$here/../../../tools/controller_python.sh")}"
rm -rf "$root"
"$python" -m venv "$root"
"$root/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-compile -r "$here/requirements.txt"
echo "install_checkov: checkov $("$root/bin/checkov" --version) at $root/bin/checkov"
