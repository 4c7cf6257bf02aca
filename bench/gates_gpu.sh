#!/usr/bin/env bash
# The whole pipeline (capture .. gates 1-4 .. report) on the optimizable problems of
# problems/gpu on one GPU, with Inductor's kernels stitched back as candidates
# (gates.replace_with_inductor=true: every optimizable problem goes through gates 3-4) and
# one hand-written kernel from bench/candidates/.  Then the A/A benchmark of gate 4 on the
# same run.  Needs .whl/ (../shared/device/wheelhouse.sh).  Writes bench/results/gates_h200.json,
# bench/results/aa_h200.json (+ $OUT/gates_artifacts.tar.gz when OUT is set).
set -uo pipefail
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
fi
WD=${WD:-/tmp/kernelopt-gates}
OUTDIR=${OUT:-/tmp}
export PYTHONUNBUFFERED=1
PROBS="[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py, problems/gpu/level1/3_GELU_Mul_Add.py, problems/gpu/level1/4_RowSum.py, problems/gpu/level1/6_LogSoftmax.py, problems/gpu/level1/7_RMSNorm.py, problems/gpu/level1/8_ReLU.py, problems/gpu/level2/2_Conv2d_BatchNorm_ReLU.py, problems/gpu/level3/2_TransformerBlock.py, problems/gpu/level3/3_SmallCNN.py]"
t0=$(date +%s)
timeout -k 10 ${PIPELINE_TIMEOUT:-380} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going \
  --config problems="${PROBS}" device=cuda workdir=$WD candidates=bench/candidates 'gates={replace_with_inductor: true}' \
  > $OUTDIR/gates_snakemake.log 2>&1
echo "snakemake exit $? after $(( $(date +%s) - t0 )) s"
grep -A12 "^\[report\] [0-9]* problems:" $OUTDIR/gates_snakemake.log | head -14
python3 bench/collect.py $WD bench/results/gates_h200.json $OUTDIR/gates_artifacts.tar.gz
cp $WD/report/summary.json bench/results/gates_h200_summary.json 2>/dev/null
cp $WD/report/results.csv bench/results/gates_h200_results.csv 2>/dev/null
t1=$(date +%s)
timeout -k 10 ${AA_TIMEOUT:-170} python3 bench/aa.py $WD bench/results/aa_h200.json --trials ${TRIALS:-20} 2>&1 | grep -v -i warn
echo "A/A took $(( $(date +%s) - t1 )) s"
cp bench/results/gates_h200.json bench/results/aa_h200.json bench/results/gates_h200_summary.json bench/results/gates_h200_results.csv $OUTDIR/ 2>/dev/null
(ncu --version 2>&1 | tail -1) || echo "ncu missing"
