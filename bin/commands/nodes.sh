# summary: nodes (sinfo): state, GPUs total / used / free, heartbeat, jobs, drains
# usage: bin/allot nodes [--cluster C] [-o json]
# help: Every registered node: UP, DRAINING, DRAINED or LOST, GPUs used by running jobs and free, the last heartbeat,
# help: the jobs on it, who drains it and why.
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar nodes --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli nodes "$@"
