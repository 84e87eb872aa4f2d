# summary: up|down|status|reset — real Kafka broker (KRaft) and schema registry on loopback, data in .allot/
# shellcheck shell=bash
# shellcheck source=bin/infra-lib.sh
source "$ALLOT_ROOT/bin/infra-lib.sh"
infra_main "$@"
