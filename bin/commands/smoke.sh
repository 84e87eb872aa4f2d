# summary: produce and consume one event through the local broker and registry
# usage: bin/allot smoke
# help: Produces one event to the local broker and consumes it back through the registry (after 'bin/allot infra up').
# shellcheck shell=bash
use_jdk
KAFKA_CLASSPATH_FILE="$ALLOT_HOME/dist/kafka-$KAFKA_VERSION.classpath"
[ -s "$KAFKA_CLASSPATH_FILE" ] || die "run 'bin/allot infra up' first"
# It creates and deletes a topic of its own: the broker's admin principal (the services' may not).
ALLOT_KAFKA_CONFIG="${ALLOT_KAFKA_CONFIG:-$(kafka_client_config admin)}"
export ALLOT_KAFKA_CONFIG
"$JAVA" -Djava.util.logging.manager=org.jboss.logmanager.LogManager -cp "$ALLOT_ROOT/test-support/target/classes:$ALLOT_ROOT/kafka-edge/target/classes:$ALLOT_ROOT/schemas/target/classes:$(cat "$KAFKA_CLASSPATH_FILE")" \
  dev.allot.testsupport.Smoke "127.0.0.1:$KAFKA_PORT" "http://127.0.0.1:$REGISTRY_PORT"
