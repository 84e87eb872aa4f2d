# The whole local system: the three services and a node agent on top of the broker and registry
# (functions behind 'bin/allot up|down|status'; sourced).
# shellcheck shell=bash
# shellcheck source=bin/infra-lib.sh
source "$ALLOT_ROOT/bin/infra-lib.sh"
# shellcheck source=bin/auth-lib.sh
source "$ALLOT_ROOT/bin/auth-lib.sh"

service_jar() { echo "$ALLOT_ROOT/$1/target/quarkus-app/quarkus-run.jar"; }
service_url() { echo "http://127.0.0.1:$1"; }
service_ready() { curl -sf "$(service_url "$1")/q/health/ready" >/dev/null; }

stack_build() {
  local stale="" entry module jar
  for entry in $STACK; do
    IFS=: read -r _ module _ <<<"$entry"
    jar=$(service_jar "$module")
    if [ ! -f "$jar" ] || [ -n "$(find "$ALLOT_ROOT/$module/src" "$ALLOT_ROOT/schemas/src" "$ALLOT_ROOT/scheduler-core/src" -newer "$jar" -type f 2>/dev/null | head -1)" ]; then
      stale="$stale,$module"
    fi
  done
  if [ -n "$stale" ]; then
    info "building${stale//,/ } (tests skipped; 'bin/allot test' runs them)"
    mvnw -pl "${stale#,}" -am package -DskipTests || die "build failed"
  fi
}

# stack_start_service NAME MODULE PORT [extra -D options...]
stack_start_service() {
  local name=$1 module=$2 port=$3; shift 3
  local pidfile="$SERVICES_DIR/$name.pid" auth_options
  if pid_alive "$pidfile"; then info "$name already running (pid $(cat "$pidfile"))"; return 0; fi
  port_in_use "$port" && die "port $port ($name) is taken by another process; free it or set the ALLOT_*_PORT variable"
  mkdir -p "$SERVICES_DIR" "$ALLOT_HOME/$name"
  # Keep the last run's log: after a crash it is the one that says why.
  [ -s "$SERVICES_DIR/$name.log" ] && mv -f "$SERVICES_DIR/$name.log" "$SERVICES_DIR/$name.log.1"
  mapfile -t auth_options < <(auth_service_options)
  # The service's own Kafka principal (named as the service), from a file of its own (bin/lib.sh).
  local kafka_config
  kafka_config=$(kafka_service_config "$name")
  nohup "$JAVA" -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$port" \
    -Dkafka.bootstrap.servers="127.0.0.1:$KAFKA_PORT" \
    -Dquarkus.kafka-streams.bootstrap-servers="127.0.0.1:$KAFKA_PORT" \
    -Dallot.registry.url="http://127.0.0.1:$REGISTRY_PORT" \
    -Dmp.messaging.connector.smallrye-kafka.apicurio.registry.url="http://127.0.0.1:$REGISTRY_PORT/apis/registry/v3" \
    -Dallot.state-dir="$ALLOT_HOME/$name" \
    -Dquarkus.config.locations="$kafka_config" \
    "${auth_options[@]}" \
    "$@" -jar "$(service_jar "$module")" >"$SERVICES_DIR/$name.log" 2>&1 &
  echo $! > "$pidfile"
}

stack_up() {
  local nodes=$1 gpus=$2 entry name module port
  infra_main up >/dev/null
  auth_ensure_key
  stack_build
  for entry in $STACK; do
    IFS=: read -r name module port <<<"$entry"
    case $name in
      node-agent)
        stack_start_service "$name" "$module" "$port" -Dallot.agent.cluster=local \
          -Dallot.agent.fake-nodes="$nodes" -Dallot.agent.gpus-per-node="$gpus" \
          -Dallot.agent.state-dir="$ALLOT_HOME/node-agent" ;;
      scheduler-service)
        stack_start_service "$name" "$module" "$port" -Dallot.scheduler.cluster=local ;;
      accounting-service)
        stack_start_service "$name" "$module" "$port" -Dkafka-streams.state.dir="$ALLOT_HOME/accounting-service/streams" ;;
      *) stack_start_service "$name" "$module" "$port" ;;
    esac
  done
  for entry in $STACK; do
    IFS=: read -r name module port <<<"$entry"
    # ALLOT_READY_TIMEOUT: a machine busy with other builds can take longer than two minutes to start a JVM
    wait_for "$name" "${ALLOT_READY_TIMEOUT:-120}" service_ready "$port" \
      || die "$name did not become ready in ${ALLOT_READY_TIMEOUT:-120} s (ALLOT_READY_TIMEOUT); see $SERVICES_DIR/$name.log"
  done
  stack_status
}

stack_down() {
  local entry name names=""
  for entry in $STACK; do names="${entry%%:*} $names"; done   # reverse order: agent first
  for name in $names; do stop_pidfile "$SERVICES_DIR/$name.pid" "$name"; done
  infra_main down
}

stack_status() {
  local entry name module port state
  infra_status
  for entry in $STACK; do
    IFS=: read -r name module port <<<"$entry"
    state=down
    if pid_alive "$SERVICES_DIR/$name.pid"; then
      if service_ready "$port"; then state=up; else state=starting; fi
    fi
    printf '%s %s %s\n' "$name" "$(service_url "$port")" "$state"
  done
}
