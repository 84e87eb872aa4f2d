# summary: submit a job from flags or a YAML/JSON file; prints its id, position and expected start
# usage: bin/allot submit -b TEAM -g GPUS [-n REPLICAS] [--min-runtime 30m] [--resumable] [-f job.yaml] [options] -- COMMAND...
# help: Submits a job (POST /jobs) and waits up to --wait seconds (5) for the scheduler's first word on it.
# help:   -b/--budget TEAM  -g/--gpus G (per replica)  -n/--replicas N  --min-runtime D (0..8h)  --resumable
# help:   --expected-duration D  --priority P  -e KEY=VALUE  --id ID  -c/--cluster C  -f/--file job.yaml|job.json
# help: Common options: --server URL (default $ALLOT_SERVER or http://127.0.0.1:8081), --token TOKEN,
# help:   -o json (for scripts), --width N, --user NAME. Exit codes: 0 ok, 1 refused, 2 bad usage, 3 unreachable.
# help: Every option: cli/README.md, or java -jar cli/target/allot-cli.jar submit --help once built.
# shellcheck shell=bash
# shellcheck source=bin/cli-lib.sh
source "$ALLOT_ROOT/bin/cli-lib.sh"
run_cli submit "$@"
