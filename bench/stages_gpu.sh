#!/usr/bin/env bash
# Stages 1-3 (capture, classify, isolate) on problems/gpu on one GPU, through the real
# Snakemake workflow.  Run on the GPU machine from the repo root, with the wheels from
# ../shared/device/wheelhouse.sh in .whl/ (snakemake is not installed there).
# Writes $OUT/stages_h200.json and $OUT/stages_artifacts.tar.gz (/tmp without OUT; the committed
# copy of the H200 run is stages_h200.json in bench/results/gates_h200/summaries.json).
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
t0=$(date +%s)
timeout -k 10 ${STAGES_TIMEOUT:-500} python3 -m snakemake --cores ${CORES:-16} --resources gpu=${GPU_SLOTS:-8} --keep-going \
  --config problems=${PROBLEMS:-problems/gpu} device=cuda workdir=$WD > $OUTDIR/snakemake.log 2>&1
echo "snakemake exit $? after $(( $(date +%s) - t0 )) s"
tail -5 $OUTDIR/snakemake.log
[ -s $WD/report/stages.json ] && python3 -c "import json; d=json.load(open('$WD/report/stages.json')); print({k: d[k] for k in ('problems','errors','verdicts','units','units_pass')})"
python3 bench/collect.py $WD $OUTDIR/stages_h200.json $OUTDIR/stages_artifacts.tar.gz
