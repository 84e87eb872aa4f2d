# summary: cancel a job (JobCancelRequested through the API)
# usage: bin/allot cancel JOB [--reason TEXT] [-o json]
# help: Asks the scheduler to cancel JOB: a waiting job leaves the queue, a running one is stopped.
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar cancel --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli cancel "$@"
