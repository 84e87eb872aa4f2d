# summary: live full-screen view: budgets as bars, the queue with reasons, the nodes
# usage: bin/allot top [--cluster C] [--interval 2] [--once]
# help: A live view like htop: budgets as bars of charged vs entitled vs owed, the queue with its reasons shortened at
# help: word boundaries to fit the terminal, the nodes. q or Ctrl-C leaves; --once prints one frame.
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar top --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli top "$@"
