# summary: audit replay: --from T --to T (--report owed|usage|job ID) [--json] [--cluster C] [--account A]
# usage: bin/allot replay --from T --to T (--report owed|usage|job ID) [--json] [--cluster C] [--account A]
# help: Reads the event log from the beginning into a fresh accounting projection (the accounting-service's code)
# help: and prints the report. Needs only the broker and the registry (bin/allot infra up). T: ISO-8601 instant.
# help: Reads Kafka as the read-only 'analyst' principal of the secured local broker; ALLOT_KAFKA_CONFIG=FILE
# help: (a client properties file, e.g. from 'bin/allot kafka-credentials') reads as another, or another broker.
# shellcheck shell=bash
# Reads the event log from the beginning into a fresh accounting projection (same code as the
# accounting-service) and prints the report; needs only the broker and the registry.
use_jdk
module="$ALLOT_ROOT/accounting-service"
app="$module/target/quarkus-app"
if older_than_sources "$app/quarkus-run.jar" accounting-service; then
  info "building accounting-service (once)"
  # -am: a fresh clone has none of its sibling modules (schemas, scheduler-core) installed.
  mvnw -o -pl accounting-service -am package -DskipTests || mvnw -pl accounting-service -am package -DskipTests \
    || die "could not build accounting-service"
fi
export ALLOT_BOOTSTRAP="${ALLOT_BOOTSTRAP:-127.0.0.1:$KAFKA_PORT}"
export ALLOT_REGISTRY_URL="${ALLOT_REGISTRY_URL:-http://127.0.0.1:$REGISTRY_PORT}"
# The read-only analyst's credentials on the secured local broker (a client properties file; set it to use another).
ALLOT_KAFKA_CONFIG="${ALLOT_KAFKA_CONFIG:-$(kafka_client_config analyst)}"
export ALLOT_KAFKA_CONFIG
exec "$JAVA" -Xmx${ALLOT_REPLAY_HEAP:-2g} -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
  -cp "$app/app/*:$app/lib/main/*:$app/lib/boot/*" dev.allot.accounting.replay.ReplayCommand "$@"
