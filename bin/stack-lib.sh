# The whole local system: the three services and a node agent on top of the broker and registry
# (functions behind 'bin/allot up|down|status'; sourced).
# shellcheck shell=bash
# shellcheck source=bin/infra-lib.sh
source "$ALLOT_ROOT/bin/infra-lib.sh"
# shellcheck source=bin/auth-lib.sh
source "$ALLOT_ROOT/bin/auth-lib.sh"

service_jar() { echo "$ALLOT_ROOT/$1/target/quarkus-app/quarkus-run.jar"; }

# The standby schedulers 'bin/allot up --schedulers N' added (name:module:port, one per line), kept for
# status, restart and down.
STACK_EXTRA_FILE="$SERVICES_DIR/stack.extra"

# stack_entries: every service of the local stack, name:module:port, in start order (a standby scheduler right
# after the active one, the agent last).
stack_entries() {
  local entry
  for entry in $STACK; do
    echo "$entry"
    if [ "${entry%%:*}" = scheduler-service ] && [ -s "$STACK_EXTRA_FILE" ]; then cat "$STACK_EXTRA_FILE"; fi
  done
}
service_url() { echo "http://127.0.0.1:$1"; }
service_ready() { curl -sf "$(service_url "$1")/q/health/ready" >/dev/null; }

stack_build() {
  local stale="" entry module jar
  for entry in $(stack_entries); do
    IFS=: read -r _ module _ <<<"$entry"
    jar=$(service_jar "$module")
    if older_than_sources "$jar" "$module"; then
      stale="$stale,$module"
    fi
  done
  if [ -n "$stale" ]; then
    info "building${stale//,/ } (tests skipped; 'bin/allot test' runs them)"
    mvnw -pl "${stale#,}" -am package -DskipTests || die "build failed"
  fi
}

# stack_start_service NAME MODULE PORT [extra -D options...]: starts it, and keeps how (NAME.launch: module, port
# and options, one a line) so that 'bin/allot restart NAME' starts it again with the same settings.
stack_start_service() {
  local name=$1 module=$2 port=$3; shift 3
  local pidfile="$SERVICES_DIR/$name.pid" auth_options
  if pid_alive "$pidfile"; then info "$name already running (pid $(cat "$pidfile"))"; return 0; fi
  port_in_use "$port" && die "port $port ($name) is taken by another process; free it or set the ALLOT_*_PORT variable"
  mkdir -p "$SERVICES_DIR" "$ALLOT_HOME/$name"
  printf '%s\n' "$module" "$port" "$@" > "$SERVICES_DIR/$name.launch"
  # Keep the last run's log: after a crash it is the one that says why.
  [ -s "$SERVICES_DIR/$name.log" ] && mv -f "$SERVICES_DIR/$name.log" "$SERVICES_DIR/$name.log.1"
  mapfile -t auth_options < <(auth_service_options)
  # The service's own Kafka principal (named as the service), from a file of its own (bin/lib.sh).
  local kafka_config principal=$name
  case $name in scheduler-service-*) principal=scheduler-service ;; esac   # a standby: the same principal
  kafka_config=$(kafka_service_config "$principal") || die "no Kafka credentials for $name"
  # The class-data archive the build made for this JDK (quarkus.package.jar.appcds): a faster start. It names the
  # class path as the build ran it, '-jar quarkus-run.jar' in the app's directory, so the service runs from there
  # (every path it is given is absolute); a JDK other than the build's ignores the archive.
  local app_dir cds=()
  app_dir=$(dirname "$(service_jar "$module")")
  [ -f "$app_dir/app-cds.jsa" ] && cds=("-XX:SharedArchiveFile=$app_dir/app-cds.jsa")
  [ -d "$app_dir" ] || die "$app_dir is missing: the build of $module did not run"
  ( cd "$app_dir" && exec nohup "$JAVA" -Xmx512m -XX:+UseSerialGC "${STACK_JIT[@]}" "${cds[@]}" \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$port" \
    -Dkafka.bootstrap.servers="127.0.0.1:$KAFKA_PORT" \
    -Dquarkus.kafka-streams.bootstrap-servers="127.0.0.1:$KAFKA_PORT" \
    -Dallot.registry.url="http://127.0.0.1:$REGISTRY_PORT" \
    -Dmp.messaging.connector.smallrye-kafka.apicurio.registry.url="http://127.0.0.1:$REGISTRY_PORT/apis/registry/v3" \
    -Dallot.state-dir="$ALLOT_HOME/$name" \
    -Dquarkus.config.locations="$kafka_config" \
    "${auth_options[@]}" \
    "$@" -jar quarkus-run.jar ) >"$SERVICES_DIR/$name.log" 2>&1 &
  echo $! > "$pidfile"
}

# stack_launch NAME MODULE PORT: starts one service of the stack with its settings.
stack_launch() {
  local name=$1 module=$2 port=$3
  case $name in
      node-agent)
        stack_start_service "$name" "$module" "$port" -Dallot.agent.cluster=local \
          -Dallot.agent.fake-nodes="$nodes" -Dallot.agent.gpus-per-node="$gpus" \
          -Dallot.agent.state-dir="$ALLOT_HOME/node-agent" ;;
      scheduler-service*)
        stack_start_service "$name" "$module" "$port" -Dallot.scheduler.cluster=local ;;
      accounting-service)
        stack_start_service "$name" "$module" "$port" -Dkafka-streams.state.dir="$ALLOT_HOME/accounting-service/streams" \
          -Dallot.accounting.instance-id=local-0 ;;
      *) stack_start_service "$name" "$module" "$port" ;;
    esac
}

# stack_wait_ready NAME PORT
stack_wait_ready() {
  # ALLOT_READY_TIMEOUT: a machine busy with other builds can take longer than two minutes to start a JVM
  wait_for "$1" "${ALLOT_READY_TIMEOUT:-120}" service_ready "$2" \
    || die "$1 did not become ready in ${ALLOT_READY_TIMEOUT:-120} s (ALLOT_READY_TIMEOUT); see $SERVICES_DIR/$1.log"
}

# stack_up NODES GPUS SCHEDULERS
stack_up() {
  local nodes=$1 gpus=$2 schedulers=${3:-1} entry name module port i
  infra_main up >/dev/null
  auth_ensure_key
  mkdir -p "$SERVICES_DIR"
  if [ "$schedulers" -gt 1 ]; then
    : > "$STACK_EXTRA_FILE"
    for ((i = 2; i <= schedulers; i++)); do
      echo "scheduler-service-$i:scheduler-service:$((SCHEDULER2_PORT + i - 2))" >> "$STACK_EXTRA_FILE"
    done
  elif ! grep -q . "$STACK_EXTRA_FILE" 2>/dev/null \
      || ! pid_alive "$SERVICES_DIR/$(head -1 "$STACK_EXTRA_FILE" | cut -d: -f1).pid"; then
    rm -f "$STACK_EXTRA_FILE"   # a plain 'up' keeps standbys that still run, forgets stopped ones
  fi
  stack_build
  for entry in $(stack_entries); do
    IFS=: read -r name module port <<<"$entry"
    case $name in
      node-agent)
        stack_start_service "$name" "$module" "$port" -Dallot.agent.cluster=local \
          -Dallot.agent.fake-nodes="$nodes" -Dallot.agent.gpus-per-node="$gpus" \
          -Dallot.agent.state-dir="$ALLOT_HOME/node-agent" ;;
      *) stack_launch "$name" "$module" "$port" ;;
    esac
  done
  for entry in $(stack_entries); do
    IFS=: read -r name module port <<<"$entry"
    stack_wait_ready "$name" "$port"
  done
  stack_status
}

# stack_restart NAME: as an operator would: stop it (TERM, then KILL after 15 s), start it again with the settings
# it was started with, wait until it is ready, print its status line.
stack_restart() {
  local name=$1 entry found="" module port launch
  case $name in
    kafka|kafka-controller|schema-registry)
      infra_prepare
      case $name in
        kafka) kafka_after_crash; stop_pidfile "$KAFKA_DIR/kafka.pid" kafka; kafka_up ;;   # the controller runs on
        kafka-controller)
          controller_apart || die "the broker's controller runs in the broker's process; 'bin/allot restart kafka'"
          stop_pidfile "$KAFKA_DIR/controller.pid" "kafka controller"; controller_up ;;
        *) stop_pidfile "$REGISTRY_DIR/registry.pid" "schema registry"; registry_up ;;
      esac
      infra_status | grep "^$name " ;
      return 0 ;;
  esac
  for entry in $(stack_entries); do [ "${entry%%:*}" = "$name" ] && found=$entry; done
  [ -n "$found" ] || die "no component '$name'; the components: kafka kafka-controller schema-registry $(stack_entries | cut -d: -f1 | tr '\n' ' ')"
  IFS=: read -r _ module port <<<"$found"
  launch="$SERVICES_DIR/$name.launch"
  stop_pidfile "$SERVICES_DIR/$name.pid" "$name"
  if [ -s "$launch" ]; then
    local -a saved
    mapfile -t saved < "$launch"
    stack_start_service "$name" "${saved[0]}" "${saved[1]}" "${saved[@]:2}"
    port=${saved[1]}
  else
    stack_launch "$name" "$module" "$port"
  fi
  stack_wait_ready "$name" "$port"
  stack_status | grep "^$name "
}

stack_down() {
  local entry name names=""
  for entry in $(stack_entries); do names="${entry%%:*} $names"; done   # reverse order: agent first
  for name in $names; do stop_pidfile "$SERVICES_DIR/$name.pid" "$name"; done
  rm -f "$STACK_EXTRA_FILE"
  infra_main down
}

# A scheduler instance is 'up' when active and ready, 'standby' when it waits to take over.
stack_status() {
  local entry name module port state health
  infra_status
  for entry in $(stack_entries); do
    IFS=: read -r name module port <<<"$entry"
    state=down
    if pid_alive "$SERVICES_DIR/$name.pid"; then
      if health=$(curl -sf "$(service_url "$port")/q/health/ready" 2>/dev/null); then
        state=up
        if grep -q '"role" *: *"standby"' <<<"$health"; then state=standby; fi
      else
        state=starting
      fi
    fi
    printf '%s %s %s\n' "$name" "$(service_url "$port")" "$state"
  done
}
