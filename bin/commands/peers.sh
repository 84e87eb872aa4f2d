# summary: PEERS_DIR [--allot-only] — Allot next to a real Slurm: a peer harness run on this checkout
# usage: bin/allot peers PEERS_DIR [--allot-only]
# help: Runs the peer benchmark in PEERS_DIR (its compare.sh: a private Slurm 22.05, then this checkout's stack, the
# help: same 500 one-second 1-GPU jobs and 40 gangs of 2 x 8 GPUs on 4 x 8 GPUs; its README says what it measures)
# help: with the two things Allot needs since identity landed: the client sends a bearer token (an admin token from
# help: 'bin/allot login', 2 h), and each marks file is writable by the jobs' user (the node agent runs jobs as
# help: nobody). The harness is copied to a temporary directory and changed there; PEERS_DIR stays as it is.
# help: --allot-only runs Allot's side alone (allot-bench.sh: one JSON line). Needs root, python3, and for Slurm's
# help: side slurm-wlm and munge (apt-get install slurm-wlm munge); Allot's ports (8080-8084, 9092-9093) free.
# help: Prints the harness's table and its SUMMARY line (figures for docs/benchmarks.md). Not part of the tests.
# shellcheck shell=bash
use_jdk
peers="" allot_only=false
while [ $# -gt 0 ]; do
  case "$1" in
    --allot-only) allot_only=true; shift ;;
    -*) die "usage: bin/allot peers PEERS_DIR [--allot-only]" ;;
    *) [ -z "$peers" ] || die "usage: bin/allot peers PEERS_DIR [--allot-only]"; peers=$1; shift ;;
  esac
done
[ -n "$peers" ] || die "usage: bin/allot peers PEERS_DIR [--allot-only]"
for f in compare.sh allot-bench.sh peerbench.py; do
  [ -f "$peers/$f" ] || die "$peers has no $f: not a peer harness"
done
command -v python3 >/dev/null || die "python3 is needed (the harness's client)"
work=$(mktemp -d /tmp/allot-peers.XXXXXX)
chmod 755 "$work"   # the jobs (as nobody) append to marks files below it
cp -r "$peers"/. "$work"/
# The two changes, each at a place the harness has today; a harness that moved on fails here, naming what is missing.
python3 - "$work/peerbench.py" <<'PY' || die "could not adapt $peers/peerbench.py (see above); the copy is in $work"
import sys
path = sys.argv[1]
text = open(path).read()
headers = '        headers = {"Content-Type": "application/json"} if body is not None else {}\n'
marks = '        open(marks, "w").close()\n'
if text.count(headers) != 1 or marks not in text:
    sys.exit("peerbench.py: the request's headers line or the marks file's creation is not where it was")
text = text.replace(headers, headers + '        if os.environ.get("ALLOT_TOKEN"):\n'
                    '            headers["Authorization"] = "Bearer " + os.environ["ALLOT_TOKEN"]\n')
text = text.replace(marks, marks + '        os.chmod(marks, 0o666)\n')
open(path, "w").write(text)
PY
ALLOT_TOKEN=$("$ALLOT_ROOT/bin/allot" login --user peer-bench --admin --ttl 7200 --print) || die "no token"
export ALLOT_TOKEN
info "peer harness adapted in $work (a bearer token, marks files writable by the jobs' user)"
if $allot_only; then
  bash "$work/allot-bench.sh" "$ALLOT_ROOT"
else
  bash "$work/compare.sh" "$ALLOT_ROOT"
fi
