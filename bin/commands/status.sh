# summary: one line per component: NAME URL STATE
# usage: bin/allot status
# help: One line per component of the local stack: NAME URL STATE.
# shellcheck shell=bash
# shellcheck source=bin/stack-lib.sh
source "$ALLOT_ROOT/bin/stack-lib.sh"
use_jdk
stack_status
