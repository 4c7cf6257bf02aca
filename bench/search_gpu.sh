#!/usr/bin/env bash
# The pipeline with the search on (heuristic backend, no API key) on the GPU, then the suite's
# (the first argument's) table:
#   bash bench/search_gpu.sh [gpu]     (carry .whl) the Search issue: problems of problems/gpu,
#       NCU profiling on, then bench/search_table.py
#   bash bench/search_gpu.sh user      (carry .whl: snakemake, anthropic, helion 1.5.0, filecheck)
#       issue 10: the standalone Triton and Helion problems of problems/gpu_user/, NCU off, then
#       bench/search_units.py
#   bash bench/search_gpu.sh rewrites  (carry .whl) issue 16: every problem of problems/rewrites/ at
#       its KernelBench-like size, so that a graph-level unit's candidate (the diagonal product's
#       row scaling) reaches gate 4 against the compiled model, then bench/rewrites16_collect.py
#       (per problem the category, gate 4's speedup and CI, what the analysis found and which
#       graph-level units were stitched)
# Environment: PROBS (Snakemake list, or a directory), SEARCH (the search config, YAML), GATES (the
# gates config, YAML; gpu only, optional), PIPELINE_TIMEOUT (rewrites: RUN_TIMEOUT),
# RESUME=<tar of an earlier run dir: *_workdir.tar.gz> (goes on with it; a warm machine's WD is
# continued without it; not rewrites), AA=<aa.py's JSON, a file or a path through a
# summaries.json> (gpu: the noise band for the table).
# A search starts from a fresh run dir, not from a gates run's (reusing one scheduled only the
# report on 2026-11-29; the cause was not established).
# Results in $OUT: gpu: search_h200.json, search_h200.csv, search_summary.json,
# search_results.csv, search_snakemake.log, search_artifacts.tar.gz (run dir without caches,
# NCU reports included), search_workdir.tar.gz (what RESUME takes: the run dir with its saved
# inputs and constants, without the compile caches); user: user_results.csv, user_summary.json,
# user_units.json, user_snakemake.log, user_workdir.tar.gz (the run directory without caches and
# tensors); rewrites: rewrites16_h200.json and .md, rewrites16_results.csv, rewrites_snakemake.log,
# rewrites_gpu_records.tgz (the run's records and logs, no tensors).
set -uo pipefail
SUITE=${1:-gpu}
GPU1=problems/gpu/level1
case "$SUITE" in
  gpu)
    WD0=/tmp/kernelopt-search TIMEOUT=${PIPELINE_TIMEOUT:-480} LOG=search_snakemake.log
    PROBS=${PROBS:-"[$GPU1/1_Softmax.py, $GPU1/2_LayerNorm.py, $GPU1/3_GELU_Mul_Add.py, $GPU1/4_RowSum.py, $GPU1/6_LogSoftmax.py, $GPU1/7_RMSNorm.py, $GPU1/8_ReLU.py]"}
    SEARCH=${SEARCH:-"{iterations: 2, beam_width: 2, synthesis_attempts: 2}"} ;;
  user)
    WD0=/tmp/kernelopt-user TIMEOUT=${PIPELINE_TIMEOUT:-540} LOG=user_snakemake.log GATES="{user_candidates: 0}"
    PROBS=${PROBS:-problems/gpu_user}
    SEARCH=${SEARCH:-"{iterations: 5, beam_width: 2, synthesis_attempts: 2, retries: 0, ncu: \"off\"}"} ;;
  rewrites)
    WD0=/tmp/kernelopt-rewrites16 TIMEOUT=${RUN_TIMEOUT:-560} LOG=rewrites_snakemake.log GATES="{user_candidates: 0}"
    PROBS=${PROBS:-problems/rewrites}
    SEARCH=${SEARCH:-"{iterations: 1, beam_width: 2, synthesis_attempts: 2, retries: 0}"} ;;
  *) echo "usage: bash bench/search_gpu.sh [gpu|user|rewrites]" >&2; exit 2 ;;
esac
. bench/device_env.sh && device_setup $WD0
RUN=$WD
case "$SUITE" in
  gpu) device_resume; which ncu && ncu --version | tail -1 ;;
  user)
    device_resume
    nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
    python3 -c "import helion, torch, triton; print('helion ok; torch', torch.__version__, 'triton', triton.__version__)" ;;
  rewrites) RUN=$WD/run ;;
esac
[ "$SUITE" = user ] || : > $OUTDIR/$LOG  # user: a run made in several calls keeps one log
t0=$(date +%s)
timeout -k 10 $TIMEOUT python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="${PROBS}" device=cuda workdir=$RUN "search=${SEARCH}" ${GATES:+"gates=${GATES}"} >> $OUTDIR/$LOG 2>&1
rc=$?
echo "$SUITE run: snakemake exit $rc after $(( $(date +%s) - t0 )) s"
case "$SUITE" in
  gpu)
    grep -E "^\[(report|expand|select|retry|synthesize)\]" $OUTDIR/$LOG | tail -60
    python3 bench/search_table.py $WD $OUTDIR/search_h200.json $OUTDIR/search_h200.csv ${AA:+--aa $AA}
    cp $WD/report/summary.json $OUTDIR/search_summary.json 2>/dev/null; cp $WD/report/results.csv $OUTDIR/search_results.csv 2>/dev/null
    tar czf $OUTDIR/search_artifacts.tar.gz -C $WD --exclude='*/capture/cache' --exclude='*.pt' . 2>/dev/null
    [ $rc -ne 0 ] && tar czf $OUTDIR/search_workdir.tar.gz -C $WD --exclude='*/capture/cache' . 2>/dev/null
    ls -la $OUTDIR ;;
  user)
    grep -E "^\[report\]|steps \([0-9]+%\) done" $OUTDIR/$LOG | tail -4
    grep -E "^\s+user_" $OUTDIR/$LOG | tail -12
    cp $WD/report/summary.json $OUTDIR/user_summary.json 2>/dev/null; cp $WD/report/results.csv $OUTDIR/user_results.csv 2>/dev/null
    python3 bench/search_units.py $WD $OUTDIR/user_units.json > /dev/null 2>&1 || echo "search_units failed"
    tar czf $OUTDIR/user_workdir.tar.gz -C $WD --exclude='*/capture/cache' --exclude='*.pt' . 2>/dev/null
    ls -la $OUTDIR ;;
  rewrites)
    cp $RUN/report/results.csv $OUTDIR/rewrites16_results.csv 2>/dev/null
    python3 bench/rewrites16_collect.py $RUN $OUTDIR/rewrites16_h200.json
    # the run's records and logs (no tensors), for whatever failed
    tar czf $OUTDIR/rewrites_gpu_records.tgz --exclude='*.pt' --exclude='*.bin' --exclude='*.so' -C $RUN . 2>/dev/null ;;
esac
