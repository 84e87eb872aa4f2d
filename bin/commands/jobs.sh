# summary: your jobs (squeue): state, GPUs, position, waiting, expected start, reason
# usage: bin/allot jobs [--team TEAM | --all] [--state STATE] [--cluster C] [-o json]
# help: Lists your jobs (--team TEAM: the team's and its sub-accounts'; --all: everyone's), waiting and running unless
# help: --state says otherwise, with the position and reason from the scheduler's latest queue of each cluster.
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar jobs --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli jobs "$@"
