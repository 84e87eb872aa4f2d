# summary: [--nodes 4] [--gpus 8] [--schedulers 1] [--demo] — the whole system locally: broker, registry, services, a node agent
# usage: bin/allot up [--nodes 4] [--gpus 8] [--schedulers 1] [--demo]
# help: Starts the broker, the registry, the budget-, scheduler- and accounting-services and one node agent with
# help: NODES fake nodes of GPUS GPUs (cluster 'local'); --demo defines three teams, submits a mix of jobs and shows
# help: a live view. --schedulers 2 runs a standby scheduler beside the active one (scheduler-service-2 on
# help: ALLOT_SCHEDULER2_PORT, 8085): it takes over when the active one stops or dies ('bin/allot status' says
# help: which is which). 'bin/allot down' stops everything. Each service must be ready within ALLOT_READY_TIMEOUT
# help: seconds (120). 'bin/allot restart NAME' restarts one component.
# shellcheck shell=bash
# shellcheck source=bin/stack-lib.sh
source "$ALLOT_ROOT/bin/stack-lib.sh"
use_jdk
nodes=4 gpus=8 schedulers=1 demo=false
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=${2:?--nodes needs a number}; shift 2 ;;
    --gpus) gpus=${2:?--gpus needs a number}; shift 2 ;;
    --schedulers) schedulers=${2:?--schedulers needs a number}; shift 2 ;;
    --demo) demo=true; shift ;;
    *) die "usage: bin/allot up [--nodes 4] [--gpus 8] [--schedulers 1] [--demo]" ;;
  esac
done
case $schedulers in 1|2|3) ;; *) die "--schedulers takes 1, 2 or 3 (one active, the others standing by), not '$schedulers'" ;; esac
stack_up "$nodes" "$gpus" "$schedulers"
if $demo; then
  # shellcheck source=bin/demo-lib.sh
  source "$ALLOT_ROOT/bin/demo-lib.sh"
  demo_run
fi
