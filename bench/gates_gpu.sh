#!/usr/bin/env bash
# The whole pipeline (capture .. gates 1-4 .. report) on the optimizable problems of
# problems/gpu on one GPU, with Inductor's kernels stitched back as candidates
# (gates.replace_with_inductor=true: every optimizable problem goes through gates 3-4) and
# the hand-written kernel in bench/candidates/; then the A/A benchmark of gate 4 on the run.
#
# It needs more than one 600 s device call, so it runs in steps that carry the run
# directory through $OUT (a tar without the compile caches: outputs keep their mtimes, so
# Snakemake resumes where it stopped and nothing recompiles max-autotune):
#   call 1:  bash bench/gates_gpu.sh                         (carry .whl)
#   here:    cp <files_at>/gates_workdir.tar.gz .run/        (.run/ is git-ignored)
#   call 2+: RESUME=.run/gates_workdir.tar.gz bash bench/gates_gpu.sh   (carry .whl and .run)
# until it prints "pipeline complete"; the last call also runs aa.py.
# Results: $OUT/gates_h200.json, gates_h200_summary.json, gates_h200_results.csv,
# aa_h200.json, gates_artifacts.tar.gz.  Needs .whl/ (../shared/device/wheelhouse.sh).
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-gates && device_resume
PROBS="[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py, problems/gpu/level1/3_GELU_Mul_Add.py, problems/gpu/level1/4_RowSum.py, problems/gpu/level1/6_LogSoftmax.py, problems/gpu/level1/7_RMSNorm.py, problems/gpu/level1/8_ReLU.py, problems/gpu/level2/2_Conv2d_BatchNorm_ReLU.py, problems/gpu/level3/2_TransformerBlock.py, problems/gpu/level3/3_SmallCNN.py]"
t0=$(date +%s)
timeout -k 10 ${PIPELINE_TIMEOUT:-420} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going --rerun-incomplete \
  --config problems="${PROBS}" device=cuda workdir=$WD candidates=bench/candidates 'gates={replace_with_inductor: true}' \
  'search={iterations: 0}' > $OUTDIR/gates_snakemake.log 2>&1
rc=$?
echo "snakemake exit $rc after $(( $(date +%s) - t0 )) s"
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
grep -A12 "^\[report\] [0-9]* problems:" $OUTDIR/gates_snakemake.log | head -14
python3 bench/collect.py $WD $OUTDIR/gates_h200.json $OUTDIR/gates_artifacts.tar.gz
cp $WD/report/summary.json $OUTDIR/gates_h200_summary.json; cp $WD/report/results.csv $OUTDIR/gates_h200_results.csv
t1=$(date +%s)
timeout -k 10 ${AA_TIMEOUT:-150} python3 bench/aa.py $WD $OUTDIR/aa_h200.json --trials ${TRIALS:-20} 2>&1 | grep -v -i warn
echo "A/A took $(( $(date +%s) - t1 )) s"
