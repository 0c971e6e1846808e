#!/usr/bin/env bash
# Prints the path of the Python that builds .venv: python3.13, else python3.12, from PATH.
# ansible-core 2.21 (requirements.txt) needs Python 3.12 or newer on the controller.
# A pyenv shim on PATH answers for every version pyenv has installed, selected or not: a shim
# that cannot run is passed over for pyenv's installed version of the same minor.
set -u
for minor in 3.13 3.12; do
    name="python$minor"
    command -v "$name" >/dev/null 2>&1 || continue
    if found=$("$name" -c 'import sys, venv; print(sys.executable)' 2>/dev/null); then
        echo "$found"
        exit 0
    fi
    if command -v pyenv >/dev/null 2>&1; then
        for version in $(pyenv versions --bare 2>/dev/null | grep -E "^${minor//./\\.}(\.[0-9]+)?$" | sort -V -r); do
            candidate="$(pyenv root)/versions/$version/bin/$name"
            if "$candidate" -c 'import venv' >/dev/null 2>&1; then
                echo "$candidate"
                exit 0
            fi
        done
    fi
done
# Not on PATH at all (a non-login shell without pyenv's shims): pyenv's own install directory.
for minor in 3.13 3.12; do
    for candidate in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$minor"* 2>/dev/null | sort -V -r); do
        if "$candidate/bin/python$minor" -c 'import venv' >/dev/null 2>&1; then
            echo "$candidate/bin/python$minor"
            exit 0
        fi
    done
done
cat >&2 <<'MESSAGE'
error: accelplane needs Python 3.13 (or 3.12) with venv on PATH as python3.13 or python3.12:
       ansible-core 2.21 runs on Python 3.12 or newer only.
       Install it (Debian 13: apt install python3.13 python3.13-venv; pyenv: pyenv install 3.13),
       or name one: make PYTHON=/path/to/python3.13 test
MESSAGE
exit 1
