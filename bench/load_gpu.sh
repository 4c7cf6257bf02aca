#!/usr/bin/env bash
# Issue 15's GPU check: a problem optimized by gate 4 loads with kernelopt.load, and its time
# matches gate 4's figure.  The gates run of bench/trust_gpu.sh (the hand-written softmax of
# bench/candidates is the one that gate 4 passes), then bench/load_timing.py.
#   bash bench/load_gpu.sh        (carry .whl)
# Results in $OUT: load_h200.json, results.csv, the snakemake log.
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-load15
PROBS=${PROBS:-"[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py]"}
t0=$(date +%s)
timeout -k 10 ${GATES_TIMEOUT:-300} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="${PROBS}" device=cuda workdir=$WD candidates=bench/candidates 'gates={replace_with_inductor: true}' \
  'search={iterations: 0}' > $OUTDIR/load_snakemake.log 2>&1
echo "gates run: snakemake exit $? after $(( $(date +%s) - t0 )) s"
cp $WD/report/results.csv $OUTDIR/load_results.csv 2>/dev/null
timeout -k 10 ${LOAD_TIMEOUT:-200} python3 bench/load_timing.py $WD $OUTDIR/load_h200.json
echo "load timing: exit $?"
# the run's records and logs (no tensors), for whatever failed
tar czf $OUTDIR/load_gpu_records.tgz --exclude='*.pt' --exclude='*.bin' --exclude='*.so' -C $WD . 2>/dev/null
