# The local broker and registry: functions behind 'bin/allot infra' and 'bin/allot up' (sourced).
# shellcheck shell=bash

KAFKA_DIR="$ALLOT_HOME/kafka"
REGISTRY_DIR="$ALLOT_HOME/registry"
REGISTRY_HOME="$ALLOT_HOME/dist/apicurio-registry-$REGISTRY_VERSION"
KAFKA_CLASSPATH_FILE="$ALLOT_HOME/dist/kafka-$KAFKA_VERSION.classpath"
# The classpath carries JBoss LogManager (through the registry client); install it before first use.
JBOSS_LOG="-Djava.util.logging.manager=org.jboss.logmanager.LogManager"
# The JIT of the stack's long-running JVMs (the broker, its controller, the services in bin/stack-lib.sh): C1 only,
# compiling after a tenth of the usual invocations. On 2 cores C2's compiles cost more than they gain over minutes (a
# freshly started broker spent 0.74-0.78 of the cores in them during the peer benchmark's 500-job burst, 0.44-0.50 with
# C1; warm, all ~0.4); at the usual thresholds the first burst after 'up' ran half-interpreted (the services, 6 runs
# against 7: POST p50 5.5 against 8.3 ms, turnover 48 against 62 ms, ~15 % less CPU; the broker 0.39-0.41 cores).
STACK_JIT=(-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.1)

broker_mode() {
  case "$KAFKA_SECURITY" in
    scram) echo secured ;;
    plaintext) echo plaintext ;;
    *) die "ALLOT_KAFKA_SECURITY must be scram or plaintext, not '$KAFKA_SECURITY'" ;;
  esac
}
broker_mode_text() {
  if [ "$(broker_mode)" = secured ]; then echo "SASL/SCRAM-SHA-512 with ACLs; 'bin/allot kafka-credentials' for a client"; else echo "plaintext, no authentication"; fi
}
# The project's own classes first: the classpath file may name older installed copies of them.
broker_classpath() {
  echo "$ALLOT_ROOT/test-support/target/classes:$ALLOT_ROOT/kafka-edge/target/classes:$ALLOT_ROOT/schemas/target/classes:$(cat "$KAFKA_CLASSPATH_FILE")"
}

infra_prepare() {
  mkdir -p "$ALLOT_HOME/dist" "$KAFKA_DIR" "$REGISTRY_DIR"
  if [ ! -f "$REGISTRY_HOME/quarkus-run.jar" ] || [ ! -s "$KAFKA_CLASSPATH_FILE" ]; then
    info "fetching Kafka $KAFKA_VERSION and Apicurio Registry $REGISTRY_VERSION from Maven Central (first run only)"
    mvnw -pl schemas,test-support -am install -DskipTests || die "build of test-support failed"
    mvnw -pl test-support dependency:build-classpath -Dmdep.includeScope=runtime \
      -Dmdep.outputFile="$KAFKA_CLASSPATH_FILE" || die "could not resolve the Kafka classpath"
  fi
  # The broker's set-up classes (test-support's LocalBroker, kafka-edge's ACL table), compiled when missing or older
  # than their sources.
  local marker="$ALLOT_ROOT/test-support/target/classes/dev/allot/testsupport/LocalBroker.class"
  if older_than_sources "$marker" test-support; then
    mvnw -o -pl test-support -am compile || mvnw -pl test-support -am compile || die "build of test-support failed"
    touch "$marker"   # an incremental compile may leave it older than a source it did not need to recompile
  fi
}

# The broker's log: INFO to its stdout (kafka.log, appended across restarts), so that what its coordinators and
# controller did around a fault can be read afterwards; the per-request and per-segment chatter at WARN, and the
# transaction markers' retries (a line per retry: 1.5 million lines, 651 MB, in 6 minutes of a failed coordinator).
broker_logging() {
  cat <<'PROPS'
logger.level=INFO
logger.handlers=CONSOLE
loggers=kafka.request.logger,kafka.log.LogCleaner,org.apache.kafka.storage.internals.log,kafka.log.UnifiedLog,kafka.coordinator.transaction.TransactionMarkerRequestCompletionHandler
logger.kafka.request.logger.level=WARN
logger.kafka.log.LogCleaner.level=WARN
logger.org.apache.kafka.storage.internals.log.level=WARN
logger.kafka.log.UnifiedLog.level=WARN
logger.kafka.coordinator.transaction.TransactionMarkerRequestCompletionHandler.level=WARN
handler.CONSOLE=org.jboss.logmanager.handlers.ConsoleHandler
handler.CONSOLE.formatter=PATTERN
handler.CONSOLE.properties=autoFlush,target
handler.CONSOLE.autoFlush=true
handler.CONSOLE.target=SYSTEM_OUT
formatter.PATTERN=org.jboss.logmanager.formatters.PatternFormatter
formatter.PATTERN.properties=pattern
formatter.PATTERN.pattern=%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p [%c] (%t) %s%e%n
PROPS
}

# The broker, and its KRaft controller in a process of its own (test-support's LocalBroker.Layout): SIGKILLed and
# restarted, a combined broker-controller flapped its partitions' leadership within a second, which Kafka 4.1.2's
# group coordinator can fail a partition on for good; a controller that outlives the broker's kill fences the dead
# broker once its session ends, and a broker started after that leads every partition once (kafka_after_crash). A
# stack formatted combined (before) stays combined.
kafka_running() { pid_alive "$KAFKA_DIR/kafka.pid"; }
controller_running() { pid_alive "$KAFKA_DIR/controller.pid"; }
controller_apart() { [ "$(cat "$KAFKA_DIR/layout" 2>/dev/null)" = CONTROLLER_APART ]; }
# kafka_serving: the broker's process runs (and its controller's, when apart)
kafka_serving() { kafka_running && { ! controller_apart || controller_running; }; }
registry_running() { pid_alive "$REGISTRY_DIR/registry.pid"; }
registry_ready() { curl -sf "http://127.0.0.1:$REGISTRY_PORT/apis/registry/v3/system/info" >/dev/null; }

# kafka_node PROPERTIES LOG PIDFILE HEAP: one KRaft node (broker, controller or both) in the background.
kafka_node() {
  # Without Quarkus's bootstrap runner: its log-manager configurator leaves the broker's log with no handler (the
  # broker logged nothing); without it jboss-logmanager takes logging.configuration, below.
  local cp; cp=$(tr ':' '\n' <"$KAFKA_CLASSPATH_FILE" | grep -v '/quarkus-bootstrap-runner-' | paste -sd: -)
  broker_logging >"$KAFKA_DIR/logging.properties"
  # Killed (SIGKILL), a broker's registration outlives it, and the restarted broker cannot register again until that
  # registration's session ends (broker.session.timeout.ms, the controller's, 9 s by default; a clean stop ends it
  # at once). A shorter session lets it serve again within 10 s of a restart; the cost is that a broker whose
  # heartbeats to its controller stall that long is fenced until the next one. Both nodes get both settings.
  local session_ms="${ALLOT_KAFKA_SESSION_MS:-3000}"
  # kept across restarts, so that a fault can be read afterwards; one older file past 64 MiB, not more
  if [ "$(stat -c %s "$2" 2>/dev/null || echo 0)" -gt $((64 * 1024 * 1024)) ]; then mv -f "$2" "$2.1"; fi
  nohup "$JAVA" $JBOSS_LOG -Dlogging.configuration="file:$KAFKA_DIR/logging.properties" "-Xmx$4" -XX:+UseG1GC \
    "${STACK_JIT[@]}" \
    -cp "$cp" kafka.Kafka "$1" \
    --override "broker.session.timeout.ms=$session_ms" \
    --override "broker.heartbeat.interval.ms=$(( session_ms / 6 > 0 ? session_ms / 6 : 1 ))" >>"$2" 2>&1 &
  echo $! > "$3"
}

# controller_up: the broker's KRaft controller, when it runs apart (a no-op when combined or running).
controller_up() {
  controller_apart || return 0
  if controller_running; then return 0; fi
  port_in_use "$KAFKA_CONTROLLER_PORT" && die "port $KAFKA_CONTROLLER_PORT (kafka's controller) is taken by another process; free it or set ALLOT_KAFKA_CONTROLLER_PORT"
  kafka_node "$KAFKA_DIR/controller/server.properties" "$KAFKA_DIR/controller.log" "$KAFKA_DIR/controller.pid" 256m
  wait_for kafka-controller "${ALLOT_READY_TIMEOUT:-120}" port_in_use "$KAFKA_CONTROLLER_PORT" || die "kafka's controller did not start in ${ALLOT_READY_TIMEOUT:-120} s (ALLOT_READY_TIMEOUT); see $KAFKA_DIR/controller.log"
  info "kafka controller up on 127.0.0.1:$KAFKA_CONTROLLER_PORT (pid $(cat "$KAFKA_DIR/controller.pid"), metadata in $KAFKA_DIR/controller/data)"
}

# A broker that died without stopping (its pid file left behind) stays registered until its session ends (3 s); one
# started sooner finds itself the registered leader, leads under the dead registration, is fenced and leads again,
# the flap this layout is for. So wait, at most three sessions, until the controller's last word on a broker is
# that it fenced it.
kafka_after_crash() {
  [ -f "$KAFKA_DIR/kafka.pid" ] && ! kafka_running && controller_apart && controller_running || return 0
  wait_for "the dead broker fenced" $(( 3 * ${ALLOT_KAFKA_SESSION_MS:-3000} / 1000 + 1 )) dead_broker_fenced \
    || info "kafka: the controller did not say it fenced the dead broker; starting it anyway"
}
dead_broker_fenced() {
  grep -E "establishing a new incarnation of broker|because its session has timed out" "$KAFKA_DIR/controller.log" \
    | tail -1 | grep -q "session has timed out"
}

kafka_up() {
  kafka_after_crash
  if kafka_running; then controller_up; info "kafka already running (pid $(cat "$KAFKA_DIR/kafka.pid")) on 127.0.0.1:$KAFKA_PORT"; return 0; fi
  port_in_use "$KAFKA_PORT" && die "port $KAFKA_PORT is taken by another process; free it or set ALLOT_KAFKA_PORT"
  controller_running || ! port_in_use "$KAFKA_CONTROLLER_PORT" \
    || die "port $KAFKA_CONTROLLER_PORT is taken by another process; free it or set ALLOT_KAFKA_CONTROLLER_PORT"
  # server.properties (and the controller's), the SCRAM credentials (kept across runs) and the storage format with
  # them: the one recipe the tests' secured broker uses too (test-support's LocalBroker).
  "$JAVA" $JBOSS_LOG -cp "$(broker_classpath)" dev.allot.testsupport.LocalBroker prepare --controller-apart "$KAFKA_DIR" \
    "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$(broker_mode)" >"$KAFKA_DIR/format.log" 2>&1 \
    || die "could not prepare the broker: $(tail -1 "$KAFKA_DIR/format.log") (see $KAFKA_DIR/format.log)"
  controller_apart || info "kafka: its storage was formatted with the controller in the broker's process, and so it" \
    "runs; 'bin/allot infra reset' (deletes the data) gives the controller a process of its own"
  controller_up
  kafka_node "$KAFKA_DIR/server.properties" "$KAFKA_DIR/kafka.log" "$KAFKA_DIR/kafka.pid" 512m
  wait_for kafka "${ALLOT_READY_TIMEOUT:-120}" port_in_use "$KAFKA_PORT" || die "kafka did not start in ${ALLOT_READY_TIMEOUT:-120} s (ALLOT_READY_TIMEOUT); see $KAFKA_DIR/kafka.log"
  info "kafka up on 127.0.0.1:$KAFKA_PORT (pid $(cat "$KAFKA_DIR/kafka.pid"), data in $KAFKA_DIR/data, $(broker_mode_text))"
}

# kafka_down: the broker first (a clean stop hands its partitions over through the controller), then the controller.
kafka_down() {
  stop_pidfile "$KAFKA_DIR/kafka.pid" kafka
  stop_pidfile "$KAFKA_DIR/controller.pid" "kafka controller"
}

registry_up() {
  if registry_running; then info "schema registry already running (pid $(cat "$REGISTRY_DIR/registry.pid")) on http://127.0.0.1:$REGISTRY_PORT"; return 0; fi
  port_in_use "$REGISTRY_PORT" && die "port $REGISTRY_PORT is taken by another process; free it or set ALLOT_REGISTRY_PORT"
  # Schemas persist next to the broker's data (H2 file): records kept in Kafka name their schema by
  # id, and an in-memory registry would forget those ids at every restart.
  if [ ! -e "$REGISTRY_DIR/db/registry.mv.db" ] && [ -n "$(ls -A "$KAFKA_DIR/data" 2>/dev/null)" ]; then
    info "warning: the broker keeps records from an earlier in-memory registry whose schema ids are gone;" \
      "services will dead-letter them. 'bin/allot infra reset' starts both empty."
  fi
  nohup "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2 \
    -Dapicurio.datasource.url="jdbc:h2:file:$REGISTRY_DIR/db/registry;DB_CLOSE_ON_EXIT=FALSE" \
    -Dapicurio.datasource.username=sa -Dapicurio.datasource.password=sa \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$REGISTRY_PORT" -Dquarkus.management.enabled=false -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port=0 \
    -Dquarkus.log.level=WARN -jar "$REGISTRY_HOME/quarkus-run.jar" >"$REGISTRY_DIR/registry.log" 2>&1 &
  echo $! > "$REGISTRY_DIR/registry.pid"
  wait_for registry 180 registry_ready || die "schema registry did not answer in 180 s; see $REGISTRY_DIR/registry.log"
  info "schema registry up on http://127.0.0.1:$REGISTRY_PORT (pid $(cat "$REGISTRY_DIR/registry.pid"); schemas kept in $REGISTRY_DIR/db)"
}

create_topics() {
  # Topics come from the typed catalogue (dev.allot.schemas.catalogue.Topics), ACLs from kafka-edge's KafkaAccess.
  ALLOT_KAFKA_CONFIG="$(kafka_client_config admin)" "$JAVA" $JBOSS_LOG -cp "$(broker_classpath)" \
    dev.allot.testsupport.LocalBroker setup "127.0.0.1:$KAFKA_PORT" >"$KAFKA_DIR/topics.log" 2>&1 \
    || die "could not create the catalogue topics and ACLs; see $KAFKA_DIR/topics.log"
}

infra_status() {
  local k=down r=down
  kafka_running && k=up
  registry_running && registry_ready && r=up
  printf '%s %s %s\n' kafka "127.0.0.1:$KAFKA_PORT" "$k"
  if controller_apart; then
    local c=down; controller_running && c=up
    printf '%s %s %s\n' kafka-controller "127.0.0.1:$KAFKA_CONTROLLER_PORT" "$c"
  fi
  printf '%s %s %s\n' schema-registry "http://127.0.0.1:$REGISTRY_PORT" "$r"
}

infra_main() {
  use_jdk
  case "${1:-}" in
    up)
      infra_prepare
      # Check every port first, so a taken port leaves nothing half-started.
      if ! kafka_running; then
        port_in_use "$KAFKA_PORT" && die "port $KAFKA_PORT (kafka) is taken by another process; free it or set ALLOT_KAFKA_PORT"
      fi
      if ! kafka_running && ! controller_running; then
        port_in_use "$KAFKA_CONTROLLER_PORT" && die "port $KAFKA_CONTROLLER_PORT (kafka's controller) is taken by another process; free it or set ALLOT_KAFKA_CONTROLLER_PORT"
      fi
      if ! registry_running; then
        port_in_use "$REGISTRY_PORT" && die "port $REGISTRY_PORT (schema registry) is taken by another process; free it or set ALLOT_REGISTRY_PORT"
      fi
      registry_up &
      local registry_job=$!
      kafka_up
      wait "$registry_job" || exit 1
      create_topics
      infra_status ;;
    down)
      stop_pidfile "$REGISTRY_DIR/registry.pid" "schema registry"
      kafka_down
      info "infrastructure stopped (data kept in $ALLOT_HOME; 'bin/allot infra reset' deletes it)" ;;
    reset)
      # A service's state (the accounting-service's Streams stores, the scheduler's and agent's
      # state dirs) is a projection of the log: kept across a reset it points at offsets that no
      # longer exist. So reset deletes it too, and refuses while a service still runs on it.
      local entry running="" entries
      # the stack's services, and the standby schedulers of 'up --schedulers N' (bin/stack-lib.sh)
      entries="$STACK $(cat "$SERVICES_DIR/stack.extra" 2>/dev/null || true)"
      for entry in $entries; do
        pid_alive "$SERVICES_DIR/${entry%%:*}.pid" && running="$running ${entry%%:*}"
      done
      [ -z "$running" ] || die "reset refused:$running still running on this data; stop the stack first ('bin/allot down')"
      infra_main down
      rm -rf "$KAFKA_DIR" "$REGISTRY_DIR"
      for entry in $entries; do rm -rf "${ALLOT_HOME:?}/${entry%%:*}"; done
      info "local broker, registry and service state deleted (service logs kept in $SERVICES_DIR)" ;;
    status) infra_status ;;
    *) die "usage: bin/allot infra up|down|status|reset" ;;
  esac
}

