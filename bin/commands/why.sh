# summary: why a job waits, runs or was preempted (sprio): position, accounts ahead, contract, displacements
# usage: bin/allot why JOB [-o json]
# help: Position; the accounts ranked ahead at each level of the tree with their ratios against the job's own branch;
# help: the missing resource or the reservation holding it; the contract (protected until / preemptible now); for
# help: each preemption who displaced it, their ratio against its own, the margin and the work lost.
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar why --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli why "$@"
