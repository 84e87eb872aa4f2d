# summary: a job's output (stdout and stderr of a replica), through the API; --follow until it ends
# usage: bin/allot logs JOB [--replica N] [--follow] [-o json]
# help: Reads the replica's output from the node agent that ran it, through the budget-service (GET /jobs/JOB/logs).
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar logs --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli logs "$@"
