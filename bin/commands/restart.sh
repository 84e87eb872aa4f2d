# summary: NAME — restart one component of the local stack as an operator would (stop, start, wait until ready)
# usage: bin/allot restart NAME
# help: Restarts one component of the stack 'bin/allot up' started: stops it (TERM, then KILL after 15 s), starts it
# help: again with the settings it was started with, waits until it is ready (ALLOT_READY_TIMEOUT seconds, 120) and
# help: prints its line as 'bin/allot status' does: NAME URL STATE. NAME: kafka (the broker; its controller runs on),
# help: kafka-controller, schema-registry, budget-service,
# help: accounting-service, scheduler-service (and scheduler-service-2 with 'up --schedulers 2'), node-agent.
# help: A restarted scheduler whose standby took over in the meantime comes back as the standby.
# shellcheck shell=bash
# shellcheck source=bin/stack-lib.sh
source "$ALLOT_ROOT/bin/stack-lib.sh"
use_jdk
[ $# -eq 1 ] || die "usage: bin/allot restart NAME (see 'bin/allot status' for the names)"
stack_restart "$1"
