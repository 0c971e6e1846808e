# Set-up and entry points. Every target creates .venv on first use from the exact pins.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: preview test lint bench schema clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

## The main job on the built-in default: offline preview (and checks) of the dev stack.
preview: $(STAMP)
	$(BIN)/accelplane preview --stack dev
	$(BIN)/accelplane check --stack dev

## The whole test suite (what CI runs). As root it first installs the Debian packages the
## bare-metal node tests need (debootstrap, dpkg-dev, iproute2, ...); without root those skip.
test: $(STAMP)
	if [ "$$(id -u)" = 0 ]; then bash tests/support/ansible/install_prereqs.sh; fi
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	for script in bench/bench_*.py; do $(BIN)/python $$script || exit 1; done

schema: $(STAMP)
	$(BIN)/accelplane schema --output schema/stack.schema.json

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
