#!/usr/bin/env bash
# Gate 4's A/A on the H200, idle and then with N processes of correctness-like work beside it
# (issue 12): two problems of problems/large captured, then bench/aa.py twice.
#   bash bench/aa_gpu.sh        (carry .whl)      Results in $OUT: aa_idle.json, aa_load4.json
# Environment: PROBS (problem files separated by commas), TRIALS (20), AA (4 load processes).
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-aa
PROBS=${PROBS:-problems/large/level1/8_LayerNorm.py,problems/large/level2/3_Gemm_Scale_GELU.py}
P="[$(for f in ${PROBS//,/ }; do printf '%s, ' "$(realpath $f)"; done | sed 's/, $//')]"
t0=$(date +%s)
timeout -k 10 ${CAPTURE_TIMEOUT:-170} python3 -m snakemake --cores 16 --resources gpu=8 --until capture \
  --config problems="$P" device=cuda workdir=$WD > $OUTDIR/aa_capture.log 2>&1
echo "captures: exit $? after $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
timeout -k 10 ${AA_TIMEOUT:-190} python3 bench/aa.py $WD $OUTDIR/aa_idle.json --trials ${TRIALS:-20} 2>&1 | tail -5
echo "idle A/A: $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
timeout -k 10 ${AA_TIMEOUT:-190} python3 bench/aa.py $WD $OUTDIR/aa_load${AA:-4}.json --trials ${TRIALS:-20} --load ${AA:-4} 2>&1 | tail -5
echo "A/A with ${AA:-4} load processes: $(( $(date +%s) - t0 )) s"
ls -la $OUTDIR
