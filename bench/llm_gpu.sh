#!/usr/bin/env bash
# LLM-written candidates on the H200 (issue "6 · LLM agents", item 9), with no network: the
# fake Messages API (tests/fake_messages_api.py) plays Claude through the real anthropic SDK.
# It answers the synthesizer and the executor of a unit with the hand-written kernel in
# tests/fixtures/candidates_h200/level1_1_Softmax/<unit>.py when there is one (the single-pass softmax), and otherwise like
# KernelSmith: Inductor's kernel resubmitted, NUM_WARPS variants, and (--wrong-first) a wrong
# kernel (+1.0 on every store) on odd executor directions, which the gates must reject.
#   bash bench/llm_gpu.sh   (carry .whl)
# Results in $OUT: llm_h200.json (bench/collect_llm.py), llm_results.csv, llm_summary.json,
# llm_snakemake.log, and the run directory's transcripts, slots and gate verdicts (llm_run/).
set -uo pipefail
. bench/device_env.sh && device_setup /tmp/kernelopt-llm
PROBS=${PROBS:-"[problems/gpu/level1/1_Softmax.py]"}
python3 tests/fake_messages_api.py --port 8765 --kernels tests/fixtures/candidates_h200/level1_1_Softmax --wrong-first > $OUTDIR/fake_api.log 2>&1 &
FAKE=$!
sleep 2
export ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=sk-ant-fake-h200-not-a-real-key
t0=$(date +%s)
timeout -k 5 ${PIPELINE_TIMEOUT:-240} python3 -m snakemake --cores 16 --resources gpu=8 --keep-going \
  --config problems="${PROBS}" device=cuda workdir=$WD 'agent={backend: anthropic}' 'gates={user_candidates: 0}' \
  'search={iterations: 1, beam_width: 2, synthesis_attempts: 1, retries: 0, ncu: "off"}' > $OUTDIR/llm_snakemake.log 2>&1
echo "snakemake exit $? after $(( $(date +%s) - t0 )) s"
kill $FAKE
grep -A4 "^\[report\] [0-9]* problems:" $OUTDIR/llm_snakemake.log | head -8
python3 bench/collect_llm.py $WD $OUTDIR/llm_h200.json
cp $WD/report/summary.json $OUTDIR/llm_summary.json 2>/dev/null; cp $WD/report/results.csv $OUTDIR/llm_results.csv 2>/dev/null
(cd $WD && find . \( -path '*/llm/*.json' -o -name 'slot.json' -o -name 'gate*.json' -o -name 'beam.json' -o -name 'best.json' \
  -o -name 'plan.json' -o -name 'result.json' -o -name 'candidate.py' -o -name 'summary.md' \) -print0 \
  | tar czf $OUTDIR/llm_run.tar.gz --null -T -)
grep -c sk-ant-fake-h200 -r $WD | grep -v ':0$' | head -3; echo "files holding the key: above (none expected)"
