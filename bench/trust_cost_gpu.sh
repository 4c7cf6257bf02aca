#!/usr/bin/env bash
# What the hardened gates cost per candidate on the GPU (issue "5 · Gates that cannot be fooled"):
# the same four problems as `STEP=pipeline bash bench/trust_gpu.sh`, run by the pipeline as it
# was before the hardening.  Carry .whl and .run, where .run/before_tree holds that commit:
#   git archive 960f2b9 kernelopt rules scripts Snakefile config.yaml envs profiles problems \
#       tests/fixtures/candidates_h200 bench/device_env.sh pyproject.toml | tar -x -C .run/before_tree
# Every rule writes Snakemake's benchmark file (wall seconds per job); $OUT/trust_before_benchmarks.tar.gz
# holds those of the before run, and bench/gate_cost.py sets them against the after run's
# (trust_workdir.tar.gz of bench/trust_gpu.sh).
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-before
PROBS=${PROBS:-"[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py, problems/gpu/level1/3_GELU_Mul_Add.py, problems/gpu/level2/2_Conv2d_BatchNorm_ReLU.py]"}
cd .run/before_tree && export PYTHONPATH=/tmp/site:$PWD
t0=$(date +%s)
timeout -k 10 ${PIPELINE_TIMEOUT:-400} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going \
  --config problems="${PROBS}" device=cuda workdir=$WD candidates=tests/fixtures/candidates_h200 'gates={replace_with_inductor: true}' \
  'search={iterations: 0}' > $OUTDIR/trust_before_snakemake.log 2>&1
echo "snakemake (before) exit $? after $(( $(date +%s) - t0 )) s"
grep -A8 "^\[report\] [0-9]* problems:" $OUTDIR/trust_before_snakemake.log | head -10
tar czf $OUTDIR/trust_before_benchmarks.tar.gz -C $WD benchmarks report/summary.json
ls -la $OUTDIR
