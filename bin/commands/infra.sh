# summary: up|down|status|reset — real Kafka broker (KRaft) and schema registry on loopback, data in .allot/
# usage: bin/allot infra up|down|status|reset
# help:   up       start a Kafka broker on 127.0.0.1:9092 with its KRaft controller in a process of its own (:9093),
# help:            and the schema registry on :8080, create the topics (storage formatted with the controller in the
# help:            broker's process, as before, stays so until 'infra reset')
# help:   down     stop both (data kept in .allot/)
# help:   status   one line per component: NAME URL STATE
# help:   reset    stop both and delete their data and every service's state (refused while a service runs)
# help: Ports: ALLOT_KAFKA_PORT, ALLOT_KAFKA_CONTROLLER_PORT, ALLOT_REGISTRY_PORT.
# help: Security: the broker takes SASL/SCRAM-SHA-512 clients only, each principal limited by ACLs (docs/architecture.md);
# help: credentials are generated once under .allot/kafka/credentials (mode 0600) and added when the storage is
# help: formatted; 'bin/allot kafka-credentials' prints one. ALLOT_KAFKA_SECURITY=plaintext: no authentication
# help: (fixed at format time; switching needs 'infra reset').
# shellcheck shell=bash
# shellcheck source=bin/infra-lib.sh
source "$ALLOT_ROOT/bin/infra-lib.sh"
infra_main "$@"
