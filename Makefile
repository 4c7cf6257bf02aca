# Shortcuts; the README's commands are the reference.
.PHONY: install demo test lint ci

install:
	pip install -e '.[test]'

demo:
	snakemake --cores 2 --config device=cpu

test:
	python -m pytest -q

lint:
	snakefmt --check Snakefile rules/
	snakemake --lint

ci:
	bash .ci/run
