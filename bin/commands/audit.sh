# summary: audit JOB — re-derive one job's decisions from the log through scheduler-core and print them with their reasons
# usage: bin/allot audit JOB [--cluster C]
# help: Reads the event log from the beginning (every input of the job's cluster, in timestamp order) into a fresh
# help: scheduler projection (the scheduler-service's code and scheduler-core), with a pass at every time the live
# help: scheduler decided, and prints the job's logged decisions with their reasons, each marked 'same' when the
# help: replay took it too (exit 1 when one differs). Needs only the broker and the registry (bin/allot infra up).
# help: Reads Kafka as the read-only 'analyst' principal of the secured local broker; ALLOT_KAFKA_CONFIG=FILE
# help: (a client properties file, e.g. from 'bin/allot kafka-credentials') reads as another, or another broker.
# help: Replays with the default preemption rules; when the live scheduler runs others, pass them as
# help: JAVA_TOOL_OPTIONS="-Dallot.scheduler.preemption.protected-fraction=0 ..." (scheduler-service/README).
# shellcheck shell=bash
use_jdk
[ $# -ge 1 ] || die "usage: bin/allot audit JOB [--cluster C]"
module="$ALLOT_ROOT/scheduler-service"
app="$module/target/quarkus-app"
if older_than_sources "$app/quarkus-run.jar" scheduler-service; then
  info "building scheduler-service (once)"
  # -am: a fresh clone has none of its sibling modules (schemas, kafka-edge, scheduler-core) installed.
  mvnw -o -pl scheduler-service -am package -DskipTests || mvnw -pl scheduler-service -am package -DskipTests \
    || die "could not build scheduler-service"
fi
export ALLOT_BOOTSTRAP="${ALLOT_BOOTSTRAP:-127.0.0.1:$KAFKA_PORT}"
export ALLOT_REGISTRY_URL="${ALLOT_REGISTRY_URL:-http://127.0.0.1:$REGISTRY_PORT}"
# The read-only analyst's credentials on the secured local broker (a client properties file; set it to use another).
ALLOT_KAFKA_CONFIG="${ALLOT_KAFKA_CONFIG:-$(kafka_client_config analyst)}"
export ALLOT_KAFKA_CONFIG
exec "$JAVA" -Xmx${ALLOT_AUDIT_HEAP:-2g} -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
  -cp "$app/app/*:$app/lib/main/*:$app/lib/boot/*" dev.allot.scheduler.Audit "$@"
