#!/usr/bin/env bash
# The search (Search issue) on the GPU: the whole pipeline with the heuristic backend
# (no API key) on problems of problems/gpu, NCU profiling on, then the per-problem table.
#   bash bench/search_gpu.sh                                 (carry .whl)
# Environment: PROBS (Snakemake list), SEARCH (the search config, YAML), GATES (the gates
# config, YAML, optional), PIPELINE_TIMEOUT,
# RESUME=<tar of an earlier search run dir: search_workdir.tar.gz> (goes on with it; a warm
# machine's WD is continued without it), AA=<aa json> (noise band for the table).
# A search starts from a fresh run dir, not from a gates run's (reusing one scheduled only the
# report on 2026-11-29; the cause was not established).
# Results in $OUT: search_h200.json, search_h200.csv, search_summary.json,
# search_results.csv, search_snakemake.log, search_artifacts.tar.gz (run dir without caches,
# NCU reports included), search_workdir.tar.gz (what RESUME takes: the run dir with its saved
# inputs and constants, without the compile caches).
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-search
device_resume
PROBS=${PROBS:-"[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py, problems/gpu/level1/3_GELU_Mul_Add.py, problems/gpu/level1/4_RowSum.py, problems/gpu/level1/6_LogSoftmax.py, problems/gpu/level1/7_RMSNorm.py, problems/gpu/level1/8_ReLU.py]"}
SEARCH=${SEARCH:-"{iterations: 2, beam_width: 2, synthesis_attempts: 2}"}
which ncu && ncu --version | tail -1
t0=$(date +%s)
timeout -k 10 ${PIPELINE_TIMEOUT:-480} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="${PROBS}" device=cuda workdir=$WD "search=${SEARCH}" ${GATES:+"gates=${GATES}"} > $OUTDIR/search_snakemake.log 2>&1
rc=$?
echo "snakemake exit $rc after $(( $(date +%s) - t0 )) s"
grep -E "^\[(report|expand|select|retry|synthesize)\]" $OUTDIR/search_snakemake.log | tail -60
python3 bench/search_table.py $WD $OUTDIR/search_h200.json $OUTDIR/search_h200.csv ${AA:+--aa $AA}
cp $WD/report/summary.json $OUTDIR/search_summary.json 2>/dev/null; cp $WD/report/results.csv $OUTDIR/search_results.csv 2>/dev/null
tar czf $OUTDIR/search_artifacts.tar.gz -C $WD --exclude='*/capture/cache' --exclude='*.pt' . 2>/dev/null
[ $rc -ne 0 ] && tar czf $OUTDIR/search_workdir.tar.gz -C $WD --exclude='*/capture/cache' . 2>/dev/null
ls -la $OUTDIR
