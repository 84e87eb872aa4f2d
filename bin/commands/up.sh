# summary: [--nodes 4] [--gpus 8] [--demo] — the whole system locally: broker, registry, services, a node agent
# usage: bin/allot up [--nodes 4] [--gpus 8] [--demo]
# help: Starts the broker, the registry, the budget-, scheduler- and accounting-services and one node agent with
# help: NODES fake nodes of GPUS GPUs (cluster 'local'); --demo defines three teams, submits a mix of jobs and shows
# help: a live view. 'bin/allot down' stops everything. Each service must be ready within ALLOT_READY_TIMEOUT seconds (120).
# shellcheck shell=bash
# shellcheck source=bin/stack-lib.sh
source "$ALLOT_ROOT/bin/stack-lib.sh"
use_jdk
nodes=4 gpus=8 demo=false
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=${2:?--nodes needs a number}; shift 2 ;;
    --gpus) gpus=${2:?--gpus needs a number}; shift 2 ;;
    --demo) demo=true; shift ;;
    *) die "usage: bin/allot up [--nodes 4] [--gpus 8] [--demo]" ;;
  esac
done
stack_up "$nodes" "$gpus"
if $demo; then
  # shellcheck source=bin/demo-lib.sh
  source "$ALLOT_ROOT/bin/demo-lib.sh"
  demo_run
fi
