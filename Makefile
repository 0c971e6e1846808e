# Set-up and entry points. Every target creates .venv on first use from the exact pins, with
# python3.13, else python3.12, from PATH (tools/controller_python.sh), or the one PYTHON names.
# ansible-core 2.21 runs on Python 3.12 or newer only: a .venv built by an older Python is rebuilt.
PYTHON ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: preview test lint bench schema clean

# The exact pins install with uv (itself pinned in requirements-bootstrap.txt, installed by pip):
# pip unpacked the provider SDKs' wheels (pulumi_aws and pulumi_gcp hold tens of thousands of files)
# in 44 s on 2 cores, uv in 9 s from an empty cache. Neither byte-compiles at install: Python
# compiles what is imported, once, on first use.
# The tests run with bytecode writing on (env -u PYTHONDONTWRITEBYTECODE): the suite starts hundreds
# of Python processes (workers, CLI runs, ansible-playbook, servers) that would each compile again.

$(STAMP): requirements.txt requirements-bootstrap.txt pyproject.toml
	@if [ -x $(BIN)/python ] && ! $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then \
		echo "rebuilding $(VENV): it was made with Python $$($(BIN)/python -c 'import sys; print(sys.version.split()[0])')"; \
		rm -rf $(VENV); \
	fi
	@if [ ! -x $(BIN)/python ]; then \
		python="$(PYTHON)"; [ -n "$$python" ] || python=$$(tools/controller_python.sh) || exit 2; \
		echo "creating $(VENV) with $$python"; \
		"$$python" -m venv $(VENV) || exit 2; \
	fi
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-bootstrap.txt
	$(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements.txt
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	touch $(STAMP)

## The main job on the built-in default: offline preview (and checks) of the dev stack.
preview: $(STAMP)
	$(BIN)/accelplane preview --stack dev
	$(BIN)/accelplane check --stack dev

## The whole test suite, exactly what CI runs. As root it first installs the Debian packages and
## tools the tests need (debootstrap, prometheus, skopeo, chromium, checkov ...); without them the
## tests that need them fail, naming what to install (tests/support/prerequisites.py). The suite
## runs on every core (pytest-xdist) and one worker more: about a fifth of the suite waits on
## subprocesses and servers, and the extra worker fills that time (on 2 cores: 8:45 against 9:49);
## tests sharing an expensive set-up share a worker.
test: $(STAMP)
	if [ "$$(id -u)" = 0 ]; then bash tests/support/ansible/install_prereqs.sh; fi
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -n $$(( $$(nproc) + 1 ))

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	for script in bench/bench_*.py; do $(BIN)/python $$script || exit 1; done

schema: $(STAMP)
	$(BIN)/accelplane schema --output schema/stack.schema.json

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
