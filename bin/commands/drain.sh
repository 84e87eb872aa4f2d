# summary: drain a node (operators): no new placements; jobs released as contracts allow
# usage: bin/allot drain NODE [--reason TEXT] [-o json]
# help: Writes NodeDrainRequested through the public API; 'bin/allot nodes' shows DRAINING, then DRAINED once empty.
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar drain --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli drain "$@"
