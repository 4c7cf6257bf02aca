# Shortcuts; the README's commands are the reference.
.PHONY: install demo full-demo test lint format ci

install:
	pip install -e '.[test]'

demo:  # the quick start: quickstart.yaml's four demo problems
	snakemake --cores 2 --configfile quickstart.yaml

full-demo:  # every demo problem, the quick start's search settings
	snakemake --cores 2 --configfile quickstart.yaml --config problems=problems/demo

test:
	python -m pytest -q

lint:
	ruff check .
	ruff format --check .
	snakefmt --check Snakefile kernelopt/workflow/
	snakemake --lint

format:
	ruff format .
	snakefmt Snakefile kernelopt/workflow/

ci:
	bash .ci/run
