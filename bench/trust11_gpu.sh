#!/usr/bin/env bash
# Issue 11 ("Isolation that holds") on the H200.  Carry .whl (wheelhouse.sh) and .run
# (.run/before: `git archive <landed commit> kernelopt | tar -x -C .run/before`).
#   STEP=trust bash bench/trust11_gpu.sh   the four-problem trust run (trust_gpu.sh's pipeline:
#       capture .. gates 1-4 .. report, Inductor's own kernels stitched back and the hand-written
#       softmax), then the red-team corpora (tests/fixtures/cheats/softmax.corpus and
#       classes.corpus) on the GPU softmax unit, and the os/judge-layer cheats again beneath the form
#   STEP=cost bash bench/trust11_gpu.sh    (on the still-warm machine, or RESUME=<trust_workdir.tar.gz>)
#       gates 1-2 (kernelopt check) and 3-4 (stitch-check) of Inductor's own kernel per candidate,
#       with the landed code (.run/before) and with this one
#   STEP=corpus+cost: the corpora again (on a resumed run directory), then the cost
# Results in $OUT: trust_gates_h200.json, trust_summary.json, trust_results.csv,
# aa_trust_h200.json, trust_snakemake.log, trust11_corpus_h200.json, trust11_cost_h200.json,
# trust_workdir.tar.gz.
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-trust && device_resume
STEP=${STEP:-trust}
corpus() {
  t0=$(date +%s)
  timeout -k 10 ${CORPUS_TIMEOUT:-240} python3 bench/trust_gpu.py $WD $OUTDIR/trust11_corpus_h200.json \
    --parallel ${PARALLEL:-8}
  echo "corpus took $(( $(date +%s) - t0 )) s"
}
if [ "$STEP" = trust ]; then
  PIPELINE_TIMEOUT=${PIPELINE_TIMEOUT:-300} AA_TIMEOUT=${AA_TIMEOUT:-60} TRIALS=${TRIALS:-5} STEP=pipeline \
    bash bench/trust_gpu.sh
  if ! grep -q "steps (100%) done" $OUTDIR/trust_snakemake.log; then
    echo "the pipeline did not finish: the corpus is not run (tail of the log below)"
    tail -60 $OUTDIR/trust_snakemake.log
    for f in $(ls -t $WD/logs/*/*/* 2>/dev/null | head -3); do echo "== $f"; tail -30 $f; done
    exit 1
  fi
  corpus
else
  case "$STEP" in corpus*) corpus ;; esac
  t0=$(date +%s)
  timeout -k 10 ${COST_TIMEOUT:-500} python3 bench/trust_gpu.py $WD $OUTDIR/trust11_cost_h200.json --skip-corpus \
    --before ${BEFORE:-.run/before} --cost-problems ${COST_PROBLEMS:-level1_1_Softmax,level1_2_LayerNorm}
  echo "cost took $(( $(date +%s) - t0 )) s"
fi
ls -la $OUTDIR
