# Sourced by the bench/*_gpu.sh scripts on the GPU machine (repo root as working directory).
# device_setup WD: the carried wheels on PYTHONPATH (installed once per machine), WD and
#   OUTDIR set, unbuffered Python, and a lock left in .snakemake/ by a killed run on a warm
#   machine removed (.snakemake is not tracked, so it survives between calls).
# device_resume: RESUME=<tar of a run dir> unpacked into WD (or WD left by an earlier call on
#   a warm machine), with the repo's inputs made
#   older than the carried outputs (the fresh copy of the repo has new mtimes, and
#   Snakemake would otherwise redo every capture).
device_setup() {
  # A warm machine may still run processes of an earlier call whose timeout killed Snakemake:
  # its jobs (and, before the child's die-with-parent, their sandboxed children) went on
  # holding GPU memory and ledger claims, and in run 9 the next call's jobs waited behind them
  # for the whole call.  Nothing of ours runs between calls: end them all.
  # (never this shell or its parents: a command line that names `-m snakemake` matches too)
  local left mine=" $$ " p=$$
  while [ "${p:-1}" -gt 1 ]; do p=$(ps -o ppid= -p "$p" | tr -d ' '); mine="$mine$p "; done
  left=$(for x in $(pgrep -f '\.snakemake/scripts/|-m snakemake|kernelopt\.runner\.(child|worker|jail)|profile_harness'); do
    case "$mine $BASHPID " in *" $x "*) ;; *) echo "$x" ;; esac
  done)
  if [ -n "$left" ]; then
    echo "ending $(echo $left | wc -w) process(es) left running by an earlier call"
    kill -9 $left 2>/dev/null; sleep 2
  fi
  if [ -d .whl ]; then
    [ -d /tmp/site/snakemake ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD
  fi
  WD=${WD:-$1}
  OUTDIR=${OUT:-/tmp}
  export PYTHONUNBUFFERED=1
  rm -rf .snakemake/locks
}

device_resume() {
  if [ -n "${RESUME:-}" ]; then
    mkdir -p "$WD" && tar xzf "$RESUME" -C "$WD" && echo "resumed from $RESUME"
  elif [ -d "$WD" ]; then  # a warm machine still holds the run of an earlier call: go on with it
    echo "continuing the run already in $WD"
  else
    return 0
  fi
  find problems tests/fixtures/candidates_h200 -type f -exec touch -d 2000-01-01 {} +
}
