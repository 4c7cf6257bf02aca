#!/usr/bin/env bash
# Issue 14's refactoring (records, runner package, hardware facts) on the GPU paths CPU mode
# never takes: gates 1-4 with Inductor's kernels stitched back and the hand-written softmax
# (the run of bench/results/trust_run_h200, same command as bench/trust_gpu.sh STEP=pipeline),
# then a search with Nsight Compute on two problems, and the device's facts against
# kernelopt/core/hardware.py.
#   bash bench/refactor14_gpu.sh        (carry .whl)
# Results in $OUT: refactor14_h200.json (bench/refactor14_collect.py), the two runs' results.csv,
# the snakemake logs.
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-refactor14
PROBS=${PROBS:-"[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py, problems/gpu/level1/3_GELU_Mul_Add.py, problems/gpu/level2/2_Conv2d_BatchNorm_ReLU.py]"}
t0=$(date +%s)
timeout -k 10 ${GATES_TIMEOUT:-280} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="${PROBS}" device=cuda workdir=$WD/gates candidates=tests/fixtures/candidates_h200 'gates={replace_with_inductor: true}' \
  'search={iterations: 0}' > $OUTDIR/gates_snakemake.log 2>&1
echo "gates run: snakemake exit $? after $(( $(date +%s) - t0 )) s"
t1=$(date +%s)
timeout -k 10 ${SEARCH_TIMEOUT:-250} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/6_LogSoftmax.py]" device=cuda \
  workdir=$WD/search 'gates={user_candidates: 0}' \
  'search={iterations: 1, beam_width: 2, synthesis_attempts: 2, retries: 1, ncu: auto}' > $OUTDIR/search_snakemake.log 2>&1
echo "search run: snakemake exit $? after $(( $(date +%s) - t1 )) s"
cp $WD/gates/report/results.csv $OUTDIR/gates_results.csv 2>/dev/null
cp $WD/search/report/results.csv $OUTDIR/search_results.csv 2>/dev/null
python3 bench/refactor14_collect.py $WD $OUTDIR/refactor14_h200.json
