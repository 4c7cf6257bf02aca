#!/usr/bin/env bash
# The hardened gates on the GPU (issue "5 · Gates that cannot be fooled").
#   STEP=pipeline bash bench/trust_gpu.sh   (carry .whl): capture .. gates 1-4 .. report on four
#       problems of problems/gpu with Inductor's own kernels stitched back (every kernel through
#       the hardened gates 1-3, all must pass) and the hand-written softmax, then A/A through
#       gate 4's sandboxed child and in-process (bench/aa.py)
#   STEP=corpus bash bench/trust_gpu.sh     (carry .whl and .run; on the still-warm machine, or
#       with RESUME=<trust_workdir.tar.gz>): the cheating corpus on the softmax unit, and the
#       cost of gates 1-2 and 3-4 per candidate with the code before the hardening (.run/before:
#       `git archive <commit> kernelopt | tar -x -C .run/before`) and after
# Results in $OUT: trust_gates_h200.json, trust_results.csv, trust_summary.json,
# aa_trust_h200.json, trust_h200.json (corpus + cost), trust_snakemake.log, trust_workdir.tar.gz.
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-trust && device_resume
PROBS=${PROBS:-"[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py, problems/gpu/level1/3_GELU_Mul_Add.py, problems/gpu/level2/2_Conv2d_BatchNorm_ReLU.py]"}
STEP=${STEP:-pipeline}
if [ "$STEP" = pipeline ]; then
  t0=$(date +%s)
  timeout -k 10 ${PIPELINE_TIMEOUT:-400} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
    --config problems="${PROBS}" device=cuda workdir=$WD candidates=tests/fixtures/candidates_h200 'gates={replace_with_inductor: true}' \
    'search={iterations: 0}' > $OUTDIR/trust_snakemake.log 2>&1
  echo "snakemake exit $? after $(( $(date +%s) - t0 )) s"
  grep -A8 "^\[report\] [0-9]* problems:" $OUTDIR/trust_snakemake.log | head -10
  python3 bench/collect.py $WD $OUTDIR/trust_gates_h200.json
  cp $WD/report/summary.json $OUTDIR/trust_summary.json; cp $WD/report/results.csv $OUTDIR/trust_results.csv
  t1=$(date +%s)
  timeout -k 10 ${AA_TIMEOUT:-150} python3 bench/aa.py $WD $OUTDIR/aa_trust_h200.json --trials ${TRIALS:-10} 2>&1 | grep -v -i warn
  echo "A/A took $(( $(date +%s) - t1 )) s"
  tar czf $OUTDIR/trust_workdir.tar.gz -C $WD --exclude='*/capture/cache' . 2>/dev/null
else
  t0=$(date +%s)
  timeout -k 10 ${CORPUS_TIMEOUT:-500} python3 bench/trust_gpu.py $WD $OUTDIR/trust_h200.json --parallel ${PARALLEL:-8} \
    ${BEFORE:+--before $BEFORE} --cost-problems ${COST_PROBLEMS:-level1_1_Softmax,level1_2_LayerNorm,level2_2_Conv2d_BatchNorm_ReLU}
  echo "corpus and cost took $(( $(date +%s) - t0 )) s"
fi
ls -la $OUTDIR
