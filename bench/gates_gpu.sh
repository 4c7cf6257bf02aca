#!/usr/bin/env bash
# The whole pipeline (capture .. gates 1-4 .. report) on problems of problems/gpu on one GPU,
# with Inductor's kernels stitched back as candidates (gates.replace_with_inductor=true: every
# optimizable problem goes through gates 3-4), the hand-written kernel in tests/fixtures/candidates_h200/ and
# no search; then what the suite (the first argument) measures on the run:
#   bash bench/gates_gpu.sh [all]   the 10 optimizable problems, then the A/A benchmark of gate 4
#                                   on the run (bench/aa.py) and, with NCU_SMOKE=<seconds>,
#                                   bench/ncu_smoke.py on two isolated units
#   bash bench/gates_gpu.sh small   the same on two problems (Softmax, LayerNorm), for a device
#                                   budget too small for the ten
#   bash bench/gates_gpu.sh load    issue 15: Softmax (the hand-written kernel passes gate 4) and
#                                   LayerNorm, then bench/load_timing.py: each problem loaded with
#                                   kernelopt.load and timed as gate 4 times it (GATES_TIMEOUT,
#                                   LOAD_TIMEOUT in seconds)
#
# The ten need more than one 600 s device call, so the run goes on in steps that carry the run
# directory through $OUT (a tar without the compile caches: outputs keep their mtimes, so
# Snakemake resumes where it stopped and nothing recompiles max-autotune):
#   call 1:  bash bench/gates_gpu.sh                         (carry .whl)
#   here:    cp <files_at>/gates_workdir.tar.gz .run/        (.run/ is git-ignored)
#   call 2+: RESUME=.run/gates_workdir.tar.gz bash bench/gates_gpu.sh   (carry .whl and .run)
# until it prints "pipeline complete"; the last call also runs aa.py.
# Environment: PROBS (Snakemake list), PIPELINE_TIMEOUT, AA_TIMEOUT, TRIALS, RESUME.
# Results in $OUT: all: gates_h200.json, gates_h200_summary.json, gates_h200_results.csv,
# aa_h200.json, gates_artifacts.tar.gz, gates_workdir.tar.gz, gates_snakemake.log (ncu_smoke_h200.json);
# small: gates_small_h200.json, aa_small_h200.json, gates_small_artifacts.tar.gz, small_snakemake.log;
# load: load_h200.json, load_results.csv, load_snakemake.log, load_gpu_records.tgz (the run's
# records and logs, no tensors).  Needs .whl/ (../shared/device/wheelhouse.sh).
set -uo pipefail
SUITE=${1:-all}
GPU1=problems/gpu/level1
case "$SUITE" in
  all)
    WD0=/tmp/kernelopt-gates LOG=gates_snakemake.log TIMEOUT=${PIPELINE_TIMEOUT:-420}
    PROBS=${PROBS:-"[$GPU1/1_Softmax.py, $GPU1/2_LayerNorm.py, $GPU1/3_GELU_Mul_Add.py, $GPU1/4_RowSum.py, $GPU1/6_LogSoftmax.py, $GPU1/7_RMSNorm.py, $GPU1/8_ReLU.py, problems/gpu/level2/2_Conv2d_BatchNorm_ReLU.py, problems/gpu/level3/2_TransformerBlock.py, problems/gpu/level3/3_SmallCNN.py]"} ;;
  small)
    WD0=/tmp/kernelopt-small LOG=small_snakemake.log TIMEOUT=${PIPELINE_TIMEOUT:-150}
    PROBS=${PROBS:-"[$GPU1/1_Softmax.py, $GPU1/2_LayerNorm.py]"} ;;
  load)
    WD0=/tmp/kernelopt-load15 LOG=load_snakemake.log TIMEOUT=${GATES_TIMEOUT:-300}
    PROBS=${PROBS:-"[$GPU1/1_Softmax.py, $GPU1/2_LayerNorm.py]"} ;;
  *) echo "usage: bash bench/gates_gpu.sh [all|small|load]" >&2; exit 2 ;;
esac
. bench/device_env.sh && device_setup $WD0 && device_resume
t0=$(date +%s)
timeout -k 10 $TIMEOUT python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="${PROBS}" device=cuda workdir=$WD candidates=tests/fixtures/candidates_h200 'gates={replace_with_inductor: true}' \
  'search={iterations: 0}' > $OUTDIR/$LOG 2>&1
rc=$?
echo "snakemake exit $rc after $(( $(date +%s) - t0 )) s"
aa() {  # the A/A benchmark of gate 4 on every captured problem of the run
  t1=$(date +%s)
  timeout -k 10 ${AA_TIMEOUT:-$2} python3 bench/aa.py $WD $OUTDIR/$1 --trials ${TRIALS:-20} 2>&1 | grep -v -i warn
  echo "A/A took $(( $(date +%s) - t1 )) s"
}
case "$SUITE" in
  all)
    tar czf $OUTDIR/gates_workdir.tar.gz -C $WD --exclude='*/capture/cache' . 2>/dev/null
    ls -la $OUTDIR/gates_workdir.tar.gz
    if [ -n "${NCU_SMOKE:-}" ]; then  # ncu on 2 isolated units, as the profile rule runs it
      timeout -k 10 ${NCU_SMOKE} python3 bench/ncu_smoke.py $WD $OUTDIR/ncu_smoke_h200.json --units 2 2>&1 | grep -v -i warn | head -150
    fi
    if [ $rc -ne 0 ] || [ ! -s $WD/report/results.csv ]; then
      echo "pipeline not complete: call again with RESUME=<gates_workdir.tar.gz> (collecting what finished; A/A runs on every captured problem anyway)"
    else
      echo "pipeline complete"
    fi
    grep -A12 "^\[report\] [0-9]* problems:" $OUTDIR/$LOG | head -14
    python3 bench/collect.py $WD $OUTDIR/gates_h200.json $OUTDIR/gates_artifacts.tar.gz
    cp $WD/report/summary.json $OUTDIR/gates_h200_summary.json; cp $WD/report/results.csv $OUTDIR/gates_h200_results.csv
    aa aa_h200.json 150 ;;
  small)
    grep -A4 "^\[report\] [0-9]* problems:" $OUTDIR/$LOG | head -6
    timeout -k 5 20 python3 bench/collect.py $WD $OUTDIR/gates_small_h200.json $OUTDIR/gates_small_artifacts.tar.gz
    aa aa_small_h200.json 45 ;;
  load)
    cp $WD/report/results.csv $OUTDIR/load_results.csv 2>/dev/null
    timeout -k 10 ${LOAD_TIMEOUT:-200} python3 bench/load_timing.py $WD $OUTDIR/load_h200.json
    echo "load timing: exit $?"
    # the run's records and logs (no tensors), for whatever failed
    tar czf $OUTDIR/load_gpu_records.tgz --exclude='*.pt' --exclude='*.bin' --exclude='*.so' -C $WD . 2>/dev/null ;;
esac
