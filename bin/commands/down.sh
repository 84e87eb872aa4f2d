# summary: stop everything 'bin/allot up' started
# usage: bin/allot down
# help: Stops the services, the node agent, the broker and the registry that 'bin/allot up' started; data stays in .allot/.
# shellcheck shell=bash
# shellcheck source=bin/stack-lib.sh
source "$ALLOT_ROOT/bin/stack-lib.sh"
use_jdk
stack_down
