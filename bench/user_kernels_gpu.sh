#!/usr/bin/env bash
# Issue 16 on the GPU machine: the standalone Triton and Helion problems of problems/gpu_user/
# through the pipeline with the search on (heuristic backend).
#   bash bench/user_kernels_gpu.sh        (carry .whl: snakemake, anthropic, helion 1.5.0, filecheck)
# Environment: PROBS (default problems/gpu_user), SEARCH, PIPELINE_TIMEOUT, RESUME=<tar>.
# Results in $OUT: user_results.csv, user_summary.json, user_units.json (bench/search_units.py),
# user_snakemake.log, user_workdir.tar.gz (the run directory without caches and tensors).
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-user
device_resume
PROBS=${PROBS:-problems/gpu_user}
SEARCH=${SEARCH:-"{iterations: 5, beam_width: 2, synthesis_attempts: 2, retries: 0, ncu: \"off\"}"}
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
python3 -c "import helion, torch, triton; print('helion ok; torch', torch.__version__, 'triton', triton.__version__)"
t0=$(date +%s)
timeout -k 10 ${PIPELINE_TIMEOUT:-540} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="${PROBS}" device=cuda workdir=$WD "search=${SEARCH}" 'gates={user_candidates: 0}' \
  >> $OUTDIR/user_snakemake.log 2>&1
echo "snakemake exit $? after $(( $(date +%s) - t0 )) s"
grep -E "^\[report\]|steps \([0-9]+%\) done" $OUTDIR/user_snakemake.log | tail -4
grep -E "^\s+user_" $OUTDIR/user_snakemake.log | tail -12
cp $WD/report/summary.json $OUTDIR/user_summary.json 2>/dev/null; cp $WD/report/results.csv $OUTDIR/user_results.csv 2>/dev/null
python3 bench/search_units.py $WD $OUTDIR/user_units.json > /dev/null 2>&1 || echo "search_units failed"
tar czf $OUTDIR/user_workdir.tar.gz -C $WD --exclude='*/capture/cache' --exclude='*.pt' . 2>/dev/null
ls -la $OUTDIR
