# summary: produce and consume one event through the local broker and registry
# shellcheck shell=bash
use_jdk
KAFKA_CLASSPATH_FILE="$ALLOT_HOME/dist/kafka-$KAFKA_VERSION.classpath"
[ -s "$KAFKA_CLASSPATH_FILE" ] || die "run 'bin/allot infra up' first"
"$JAVA" -Djava.util.logging.manager=org.jboss.logmanager.LogManager -cp "$ALLOT_ROOT/test-support/target/classes:$ALLOT_ROOT/kafka-edge/target/classes:$ALLOT_ROOT/schemas/target/classes:$(cat "$KAFKA_CLASSPATH_FILE")" \
  dev.allot.testsupport.Smoke "127.0.0.1:$KAFKA_PORT" "http://127.0.0.1:$REGISTRY_PORT"
