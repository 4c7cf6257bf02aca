#!/usr/bin/env bash
# Issue 12 ("A warm executor") on the GPU machine: problems/large through the pipeline by the
# code of TREE, nvidia-smi sampled once a second, then bench/executor_table.py (jobs a minute,
# GPU busy, overhead per candidate, wall time) and, with AA=<N>, gate 4's A/A with N processes
# of correctness work running beside it (bench/aa.py --load N).
#
#   git archive 2e26645 | tar -x -C .run/before12          # the code before the executor
#   TREE=.run/before12 TAG=before bash bench/executor_gpu.sh  # carry .whl and .run
#   TAG=after bash bench/executor_gpu.sh                      # right after, on the same machine
#   TAG=defaults SEARCH='{}' bash bench/executor_gpu.sh       # the design's default search
#   KERNELOPT_FORK_CHILDREN=0 TAG=exec bash bench/executor_gpu.sh  # children as new interpreters
#   TAG=after AA=4 STEP=aa bash bench/executor_gpu.sh         # A/A under load on the warm run dir
#   TAG=aa AA=4 STEP=capture+aa PROBS=problems/large/level1/8_LayerNorm.py,problems/large/level1/9_GELU_tanh.py \
#       bash bench/executor_gpu.sh     # a fresh machine: capture two problems, A/A under load, then idle
#
# Environment: TREE (default: this checkout), TAG (names the run dir /tmp/kernelopt-exec-TAG and
# the outputs), PROBS (default problems/large; or problem files separated by commas), SEARCH (default: run 8's settings, 1 iteration,
# beam 1, 1 attempt, no retries, NCU off), PIPELINE_TIMEOUT (default 540), STEP (run, aa or
# run+aa, capture+aa: the captures alone, then the A/A; default run), AA (load processes for the
# A/A; with STEP=capture+aa the A/A is then run again on the idle GPU), RESUME (tar of a run dir),
# EXECUTOR (the config's executor section, e.g. '{workers_per_problem: 2}').
# Results in $OUT: exec_TAG_table.json, exec_TAG_snakemake.log, exec_TAG_gpu_util.csv,
# exec_TAG_summary.json, exec_TAG_results.csv, exec_TAG_aa.json, exec_TAG_workdir.tar.gz
# (the run dir without caches and tensors, to resume an unfinished run).  A run made in several
# calls: `python bench/executor_table.py RUN OUT.json --snakemake LOG1 LOG2 ...` over all its logs.
set -uo pipefail
TAG=${TAG:-after}
WD=/tmp/kernelopt-exec-$TAG
. bench/device_env.sh && device_setup $WD
device_resume
TREE=${TREE:-.}
ROOT=$PWD
PROBS=${PROBS:-problems/large}
SEARCH=${SEARCH:-"{iterations: 1, beam_width: 1, synthesis_attempts: 1, retries: 0, ncu: \"off\"}"}
STEP=${STEP:-run}
if [[ $PROBS == *,* ]]; then  # files: the config's list of absolute paths
  PCONF="[$(for f in ${PROBS//,/ }; do printf '%s, ' "$(realpath $f)"; done | sed 's/, $//')]"
else
  PCONF=$(realpath $PROBS)
fi
if [[ $STEP == *capture* ]]; then
  t0=$(date +%s)
  timeout -k 20 ${PIPELINE_TIMEOUT:-540} python3 -m snakemake --cores 16 --resources gpu=8 --until capture \
      --config problems="$PCONF" device=cuda workdir=$WD > $OUTDIR/exec_${TAG}_capture.log 2>&1
  echo "captures: snakemake exit $? after $(( $(date +%s) - t0 )) s"
fi
if [[ $STEP == *run* ]]; then
  nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 1000 \
    >> $OUTDIR/exec_${TAG}_gpu_util.csv 2>/dev/null &
  SMI=$!
  t0=$(date +%s)
  # the problems are the checkout's (the same files for both trees)
  (cd $TREE && PYTHONPATH=/tmp/site:$PWD timeout -k 20 ${PIPELINE_TIMEOUT:-540} python3 -m snakemake --cores 16 \
      --resources gpu=8 --keep-going --rerun-incomplete --config problems="$PCONF" device=cuda \
      workdir=$WD "search=${SEARCH}" 'gates={user_candidates: 0}' ${EXECUTOR:+"executor=$EXECUTOR"} \
      > $OUTDIR/exec_${TAG}_snakemake.log 2>&1)
  rc=$?
  echo "snakemake exit $rc after $(( $(date +%s) - t0 )) s"
  kill $SMI 2>/dev/null
  grep -E "^\[report\]|steps \([0-9]+%\) done" $OUTDIR/exec_${TAG}_snakemake.log | tail -3
  python3 bench/executor_table.py $WD $OUTDIR/exec_${TAG}_table.json --snakemake $OUTDIR/exec_${TAG}_snakemake.log \
    --smi $OUTDIR/exec_${TAG}_gpu_util.csv
  cp $WD/report/summary.json $OUTDIR/exec_${TAG}_summary.json 2>/dev/null
  cp $WD/report/results.csv $OUTDIR/exec_${TAG}_results.csv 2>/dev/null
  [ $rc -ne 0 ] && tar czf $OUTDIR/exec_${TAG}_workdir.tar.gz -C $WD --exclude='*/capture/cache' --exclude='*.pt' . 2>/dev/null
fi
if [[ $STEP == *aa* ]]; then
  python3 bench/aa.py $WD $OUTDIR/exec_${TAG}_aa.json --trials 20 --load ${AA:-4}
  [[ $STEP == *capture* ]] && timeout ${IDLE_TIMEOUT:-600} python3 bench/aa.py $WD $OUTDIR/exec_${TAG}_aa_idle.json --trials 20
fi
ls -la $OUTDIR
