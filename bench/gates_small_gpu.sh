#!/usr/bin/env bash
# A short end-to-end run (capture .. gates 1-4 .. report) on two problems, with the
# hand-written softmax candidate of bench/candidates/, then the A/A benchmark of gate 4 on
# them.  For a device budget too small for bench/gates_gpu.sh.
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-small
t0=$(date +%s)
timeout -k 5 ${PIPELINE_TIMEOUT:-150} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going \
  --config problems="[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py]" device=cuda workdir=$WD \
  candidates=bench/candidates 'gates={replace_with_inductor: true}' > $OUTDIR/small_snakemake.log 2>&1
echo "snakemake exit $? after $(( $(date +%s) - t0 )) s"
grep -A4 "^\[report\] [0-9]* problems:" $OUTDIR/small_snakemake.log | head -6
timeout -k 5 20 python3 bench/collect.py $WD $OUTDIR/gates_small_h200.json $OUTDIR/gates_small_artifacts.tar.gz
t1=$(date +%s)
timeout -k 5 ${AA_TIMEOUT:-45} python3 bench/aa.py $WD $OUTDIR/aa_small_h200.json --trials ${TRIALS:-20} 2>&1 | grep -v -i warn
echo "A/A took $(( $(date +%s) - t1 )) s"
