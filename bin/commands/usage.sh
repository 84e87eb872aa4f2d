# summary: a team's hourly charged / unallocated / entitled / owed GPU-hours as a terminal chart
# usage: bin/allot usage TEAM [--days 7] [--cluster C] [-o json]
# help: The hourly series of TEAM (summing the accounts under it) over the last --days days (1-7), as a chart sized to
# help: the terminal, and the period's totals.
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar usage --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli usage "$@"
