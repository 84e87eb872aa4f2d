#!/bin/sh
# broker: the broker of 'bin/allot infra up' (test-support's LocalBroker writes server.properties, the SCRAM
# credentials and formats the storage once; then kafka.Kafka). Secured (SASL/SCRAM, StandardAuthorizer, no
# access without an ACL) when the principals' secrets are mounted as /run/secrets/allot-kafka-<principal>
# (kafka.security.protocol / kafka.sasl.mechanism / kafka.sasl.jaas.config lines, as the services read them);
# plaintext otherwise. ALLOT_KAFKA_PORT (9092), ALLOT_KAFKA_CONTROLLER_PORT (9093), ALLOT_KAFKA_LISTEN_HOST
# (0.0.0.0), ALLOT_KAFKA_ADVERTISED_HOST (localhost); data in /var/lib/kafka.
# setup BOOTSTRAP: creates Allot's catalogue topics and, as the admin of /run/secrets/allot-kafka-admin, the
# ACL table (dev.allot.edge.security.KafkaAccess). create-topics BOOTSTRAP: the same (older name).
set -eu
CP="/opt/kafka/lib/*"
JBOSS_LOG="-Djava.util.logging.manager=org.jboss.logmanager.LogManager"
DIR=/var/lib/kafka
# client_properties FILE: a principal's secret as Kafka client properties (the 'kafka.' prefix dropped)
client_properties() { sed -n 's/^kafka\.\(security\.protocol\|sasl\.mechanism\|sasl\.jaas\.config\)=/\1=/p' "$1"; }
case "${1:-broker}" in
  broker)
    mode=plaintext
    if [ -f /run/secrets/allot-kafka-admin ]; then
      mode=secured
      mkdir -p "$DIR/credentials" && chmod 0700 "$DIR/credentials"
      for f in /run/secrets/allot-kafka-*; do
        principal=${f#/run/secrets/allot-kafka-}
        (umask 077; client_properties "$f" > "$DIR/credentials/$principal.properties")
      done
    fi
    java $JBOSS_LOG -cp "$CP" dev.allot.testsupport.LocalBroker prepare "$DIR" "${ALLOT_KAFKA_PORT:-9092}" \
      "${ALLOT_KAFKA_CONTROLLER_PORT:-9093}" "$mode" "${ALLOT_KAFKA_LISTEN_HOST:-0.0.0.0}" "${ALLOT_KAFKA_ADVERTISED_HOST:-localhost}"
    # A short broker session (as bin/allot's local broker): killed and restarted, the combined broker-controller
    # registers again once its old registration's session ends (9 s by default).
    session_ms="${ALLOT_KAFKA_SESSION_MS:-3000}"
    # shellcheck disable=SC2086
    exec java $JBOSS_LOG $KAFKA_HEAP_OPTS -XX:+UseG1GC -cp "$CP" kafka.Kafka "$DIR/server.properties" \
      --override "broker.session.timeout.ms=$session_ms" \
      --override "broker.heartbeat.interval.ms=$(( session_ms / 6 > 0 ? session_ms / 6 : 1 ))" ;;
  setup|create-topics)
    if [ -f /run/secrets/allot-kafka-admin ]; then
      (umask 077; client_properties /run/secrets/allot-kafka-admin > /tmp/admin.properties)
      export ALLOT_KAFKA_CONFIG=/tmp/admin.properties
    fi
    exec java $JBOSS_LOG -cp "$CP" dev.allot.testsupport.LocalBroker setup "${2:?setup BOOTSTRAP}" ;;
  *) exec "$@" ;;
esac
