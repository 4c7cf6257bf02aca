#!/usr/bin/env bash
# Issue 16's rewrites above the kernel on the H200: every problem of problems/rewrites/ at its
# KernelBench-like size, the whole pipeline (gates 1-4) with a small search, so that a graph-level
# unit's candidate (the diagonal product's row scaling) reaches gate 4 against the compiled model.
#   bash bench/rewrites_gpu.sh        (carry .whl)
# Results in $OUT (to be copied to bench/results/rewrites16/): rewrites16_h200.json and
# rewrites16_h200.md (bench/rewrites16_collect.py: per problem the category, gate 4's speedup and
# CI, what the analysis found and which graph-level units were stitched), results.csv, the log.
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-rewrites16
PROBS=${PROBS:-problems/rewrites}
SEARCH=${SEARCH:-"{iterations: 1, beam_width: 2, synthesis_attempts: 2, retries: 0}"}
t0=$(date +%s)
timeout -k 10 ${RUN_TIMEOUT:-560} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="${PROBS}" device=cuda workdir=$WD/run 'gates={user_candidates: 0}' \
  "search=${SEARCH}" > $OUTDIR/rewrites_snakemake.log 2>&1
echo "rewrites run: snakemake exit $? after $(( $(date +%s) - t0 )) s"
cp $WD/run/report/results.csv $OUTDIR/rewrites16_results.csv 2>/dev/null
python3 bench/rewrites16_collect.py $WD/run $OUTDIR/rewrites16_h200.json
# the run's records and logs (no tensors), for whatever failed
tar czf $OUTDIR/rewrites_gpu_records.tgz --exclude='*.pt' --exclude='*.bin' --exclude='*.so' -C $WD/run . 2>/dev/null
