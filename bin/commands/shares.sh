# summary: the budget tree (sshare): shares, fractions, entitlement, usage, ratio, owed vs delivered
# usage: bin/allot shares [SUBTREE] [--cluster C] [-o json]
# help: The tree (or SUBTREE): share, fraction of parent and of cluster, entitled GPUs, charged and unallocated
# help: GPU-hours and ratio over the 7-day window, owed vs delivered GPU-hours.
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar shares --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli shares "$@"
