#!/usr/bin/env bash
# problems/large/ (KernelBench sizes, 6-8 GiB inputs) on the GPU machine with the README's
# command (--cores 16 --resources gpu=8), the search on at 1 iteration (issue 7, "Real scale").
#   bash bench/large_gpu.sh              (carry .whl; a warm machine's run directory is continued)
# Environment: PROBS (default problems/large), SEARCH, PIPELINE_TIMEOUT, EXTRA=1 (then: add
# problems/large_extra to the same workdir and show, by a dry run, that only it is scheduled;
# EXTRA=run: run it for real, EXTRA_TIMEOUT), CUDA_VISIBLE_DEVICES=0 (one GPU of a 2-GPU machine),
# EXECUTOR='{workers_per_problem: 2}' (the config's executor section), RESUME=<tar of the run dir> (large_workdir.tar.gz of an earlier call), TARGET=<a file under
# the run directory> (only what it needs, e.g. one unit's gate2.json).
# Results in $OUT: large_h200.json + large_jobs.csv (bench/collect_large.py), level1_table.{json,md}
# (bench/level1_table.py), large_results.csv,
# large_summary.json, large_snakemake.log, large_dryrun_extra.log, large_workdir.tar.gz,
# gpu_util.csv (nvidia-smi once a second).
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-large
device_resume
PROBS=${PROBS:-problems/large}
SEARCH=${SEARCH:-"{iterations: 1, beam_width: 2, synthesis_attempts: 1, retries: 0, ncu: \"off\"}"}
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
free -g | head -2
# GPU utilisation once a second while the pipeline runs (the GPU-busy fraction of the table)
nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 1000 \
  >> $OUTDIR/gpu_util.csv 2>/dev/null &
SMI=$!
t0=$(date +%s)
timeout -k 10 ${PIPELINE_TIMEOUT:-500} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  ${TARGET:+$WD/$TARGET} --config problems="${PROBS}" device=cuda workdir=$WD "search=${SEARCH}" 'gates={user_candidates: 0}' \
  ${EXECUTOR:+"executor=${EXECUTOR}"} >> $OUTDIR/large_snakemake.log 2>&1
rc=$?
echo "snakemake exit $rc after $(( $(date +%s) - t0 )) s"
grep -E "^\[report\]|steps \([0-9]+%\) done" $OUTDIR/large_snakemake.log | tail -4
if [ "${EXTRA:-0}" = run ]; then  # the same workdir with one more problem, run for real
  t1=$(date +%s)
  timeout -k 10 ${EXTRA_TIMEOUT:-300} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
    --config problems="${PROBS_EXTRA:-[problems/large, problems/large_extra]}" device=cuda workdir=$WD "search=${SEARCH}" \
    'gates={user_candidates: 0}' > $OUTDIR/large_snakemake_extra.log 2>&1
  echo "extra run: snakemake exit $? after $(( $(date +%s) - t1 )) s"
  grep -A30 "^Job stats" $OUTDIR/large_snakemake_extra.log | head -30
  echo "problems named in the jobs it ran:"; grep -oE "wildcards: problem=[A-Za-z0-9_]+" $OUTDIR/large_snakemake_extra.log | sort | uniq -c
fi
if [ "${EXTRA:-0}" = 1 ]; then
  python3 -m snakemake -n --cores 16 --resources gpu=8 --config problems="${PROBS_EXTRA:-[problems/large, problems/large_extra]}" device=cuda \
    workdir=$WD "search=${SEARCH}" 'gates={user_candidates: 0}' > $OUTDIR/large_dryrun_extra.log 2>&1
  grep -A40 "^Job stats" $OUTDIR/large_dryrun_extra.log | head -40
  echo "problems named in planned jobs:"; grep -oE "wildcards: problem=[A-Za-z0-9_]+" $OUTDIR/large_dryrun_extra.log | sort | uniq -c
fi
kill $SMI 2>/dev/null
python3 bench/collect_large.py $WD $OUTDIR/large_snakemake.log $OUTDIR/large_h200.json $OUTDIR/large_jobs.csv $OUTDIR/gpu_util.csv
python3 bench/level1_table.py $WD $OUTDIR/level1_table.json $OUTDIR/level1_table.md > /dev/null 2>&1 \
  && tail -1 $OUTDIR/level1_table.md  # issue 8's table of the level-1 problems (finished or not)
cp $WD/report/summary.json $OUTDIR/large_summary.json 2>/dev/null; cp $WD/report/results.csv $OUTDIR/large_results.csv 2>/dev/null
du -sh $WD; tar czf $OUTDIR/large_workdir.tar.gz -C $WD --exclude='*/capture/cache' --exclude='*.pt' . 2>/dev/null
ls -la $OUTDIR
