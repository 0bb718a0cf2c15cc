# Handbook — two commands: `make run` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run run-sso test install lint bench prove stop clean docs docs-serve

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Reinstall only when requirements.txt changes.
$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

install: $(VENV)/.installed

run: install
	@bash scripts/run.sh

# make run behind a local OpenID Connect provider (README, Single sign-on).
run-sso: install
	@bash scripts/run_sso.sh

test: install
	@bash scripts/test.sh

# mypy (config in pyproject.toml) loads config.settings through the django-stubs plugin; the
# settings only read the environment, and need no running service.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: install
	@bash scripts/bench.sh

prove: install
	@bash scripts/prove.sh

# The documentation's tools go into the same venv, reinstalled only when requirements-docs.txt changes.
$(VENV)/.docs-installed: requirements-docs.txt | $(VENV)/.installed
	$(BIN)/pip install --quiet -r requirements-docs.txt
	touch $@

# The documentation site, built into site/ (mkdocs.yml); strict: a broken link or a page missing
# from the navigation fails. It imports the settings and the API (docs/hooks.py), never a service.
docs: install $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Live preview on http://127.0.0.1:8001/ (make run keeps 8000).
docs-serve: install $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

stop:
	$(BIN)/python -m core.embedded stop

clean: stop
	rm -rf var staticfiles
