# The checkout's entry point: `snakemake --cores 2 --configfile quickstart.yaml` from here.  The
# workflow (Snakefile, rules/, scripts/, profiles/, config.yaml, envs/) is package data under
# kernelopt/workflow/, so that an installed kernelopt runs it too (`kernelopt run`,
# docs/running.md); profiles/ and config.yaml here are links into it.


include: "kernelopt/workflow/Snakefile"


# an included file's rules never become the default target: the workflow's `all` is
workflow.default_target = "all"
