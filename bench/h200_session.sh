#!/usr/bin/env bash
# One device call that does the rest of the GPU evidence of this session (2026-11-29):
# 1. gates_gpu.sh resumed from RESUME (the 10 optimizable problems, Inductor's kernels and
#    the hand-written softmax as candidates, gates 1-4, report), then aa.py on every captured
#    problem;  2. search_gpu.sh on four level-1 problems from a fresh run directory, NCU on,
#    heuristic backend;  3. everything small in one tarball (8-file limit).
#   RESUME=.run/gates_workdir.tar.gz bash bench/h200_session.sh     (carry .whl and .run)
# History: on 2026-11-29 step 2 was seeded with the gates run directory (SEED_FROM, since
# removed) and scheduled only the report; cause not established.
set -uo pipefail
R=/tmp/res; mkdir -p $R
OUT=$R PIPELINE_TIMEOUT=${GATES_TIMEOUT:-230} AA_TIMEOUT=${AA_TIMEOUT:-100} bash bench/gates_gpu.sh
[ -n "${OUT:-}" ] && cp $R/gates_workdir.tar.gz $OUT/ 2>/dev/null
OUT=$R RESUME= AA=$R/aa_h200.json PIPELINE_TIMEOUT=${SEARCH_TIMEOUT:-200} \
  PROBS="[problems/gpu/level1/1_Softmax.py, problems/gpu/level1/2_LayerNorm.py, problems/gpu/level1/6_LogSoftmax.py, problems/gpu/level1/7_RMSNorm.py]" \
  SEARCH="{iterations: 1, beam_width: 2, synthesis_attempts: 2}" bash bench/search_gpu.sh
[ -n "${OUT:-}" ] && tar czf $OUT/h200_results.tar.gz -C $R --exclude=gates_workdir.tar.gz . && ls -la $OUT
