# The compose stack on this machine (functions behind 'bin/allot compose'; sourced): compose/docker-compose.local.yml,
# host networking on 127.0.0.1, ports of its own so that it runs beside 'bin/allot up'.
# shellcheck shell=bash
# shellcheck source=bin/images-lib.sh
source "$ALLOT_ROOT/bin/images-lib.sh"

export ALLOT_COMPOSE_STATE="${ALLOT_COMPOSE_STATE:-$ALLOT_HOME/compose}"
export ALLOT_COMPOSE_KAFKA_PORT="${ALLOT_COMPOSE_KAFKA_PORT:-19092}"
export ALLOT_COMPOSE_KAFKA_CONTROLLER_PORT="${ALLOT_COMPOSE_KAFKA_CONTROLLER_PORT:-19093}"
export ALLOT_COMPOSE_REGISTRY_PORT="${ALLOT_COMPOSE_REGISTRY_PORT:-18080}"
export ALLOT_COMPOSE_BUDGET_PORT="${ALLOT_COMPOSE_BUDGET_PORT:-18081}"
export ALLOT_COMPOSE_SCHEDULER_PORT="${ALLOT_COMPOSE_SCHEDULER_PORT:-18082}"
export ALLOT_COMPOSE_ACCOUNTING_PORT="${ALLOT_COMPOSE_ACCOUNTING_PORT:-18083}"
export ALLOT_COMPOSE_AGENT1_PORT="${ALLOT_COMPOSE_AGENT1_PORT:-18084}"
export ALLOT_COMPOSE_AGENT2_PORT="${ALLOT_COMPOSE_AGENT2_PORT:-18085}"
export ALLOT_COMPOSE_PROMETHEUS_PORT="${ALLOT_COMPOSE_PROMETHEUS_PORT:-19090}"
PROMETHEUS_IMAGE_DEFAULT=prom/prometheus:v3.5.0
COMPOSE_FILE_LOCAL="$ALLOT_ROOT/compose/docker-compose.local.yml"
# name:port of what answers HTTP health, in start order
COMPOSE_SERVICES="budget-service:$ALLOT_COMPOSE_BUDGET_PORT scheduler-service:$ALLOT_COMPOSE_SCHEDULER_PORT accounting-service:$ALLOT_COMPOSE_ACCOUNTING_PORT node-agent-1:$ALLOT_COMPOSE_AGENT1_PORT node-agent-2:$ALLOT_COMPOSE_AGENT2_PORT"
API="http://127.0.0.1:$ALLOT_COMPOSE_BUDGET_PORT"

# compose ARGS...: docker compose (v2 plugin) or docker-compose (v1) on the local file.
compose() {
  if docker compose version >/dev/null 2>&1; then
    docker compose -p allot-local -f "$COMPOSE_FILE_LOCAL" "$@"
  elif command -v docker-compose >/dev/null 2>&1; then
    docker-compose -p allot-local -f "$COMPOSE_FILE_LOCAL" "$@"
  else
    die "neither 'docker compose' nor 'docker-compose' is installed (Debian: apt-get install docker-compose)"
  fi
}

compose_prepare() {
  local port
  mkdir -p "$ALLOT_COMPOSE_STATE/secrets"
  # Throw-away secrets for a local run; a real deployment brings its own (compose/secrets/README.md).
  # One Kafka principal each (the services' own, and the broker's admin): the lines the service reads
  # (QUARKUS_CONFIG_LOCATIONS) and the broker adds as SCRAM credentials when it formats its storage.
  local principal
  for principal in admin budget-service scheduler-service accounting-service node-agent; do
    [ -s "$ALLOT_COMPOSE_STATE/secrets/allot-kafka-$principal.properties" ] && continue
    printf 'kafka.security.protocol=SASL_PLAINTEXT\nkafka.sasl.mechanism=SCRAM-SHA-512\nkafka.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";\n' \
      "$principal" "$(openssl rand -hex 24)" > "$ALLOT_COMPOSE_STATE/secrets/allot-kafka-$principal.properties"
  done
  if [ ! -s "$ALLOT_COMPOSE_STATE/secrets/allot-signing-key.pem" ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$ALLOT_COMPOSE_STATE/secrets/signing-private-key.pem" 2>/dev/null
    openssl pkey -in "$ALLOT_COMPOSE_STATE/secrets/signing-private-key.pem" -pubout -out "$ALLOT_COMPOSE_STATE/secrets/allot-signing-key.pem"
  fi
  chmod 0644 "$ALLOT_COMPOSE_STATE"/secrets/allot-*   # read by the services' uid 1001 (compose v1 bind-mounts the files)
  # The agent API secret: the agents refuse it unless only its owner may read it, so it belongs to the services'
  # uid 1001, mode 0400 (made once; chown needs root, as docker does).
  if [ ! -s "$ALLOT_COMPOSE_STATE/secrets/allot-agent-api-secret" ]; then
    (umask 077; openssl rand -hex 32 > "$ALLOT_COMPOSE_STATE/secrets/allot-agent-api-secret")
  fi
  chown 1001:1001 "$ALLOT_COMPOSE_STATE/secrets/allot-agent-api-secret" 2>/dev/null \
    || die "cannot give $ALLOT_COMPOSE_STATE/secrets/allot-agent-api-secret to uid 1001 (the services' user): run as root"
  chmod 0400 "$ALLOT_COMPOSE_STATE/secrets/allot-agent-api-secret"
  cat > "$ALLOT_COMPOSE_STATE/prometheus.yml" <<YAML
global: {scrape_interval: 5s, evaluation_interval: 5s}
rule_files: [/etc/prometheus/rules/*.yml]
scrape_configs:
  - job_name: allot
    metrics_path: /q/metrics
    static_configs:
      - {targets: ['127.0.0.1:$ALLOT_COMPOSE_BUDGET_PORT'], labels: {service: budget-service}}
      - {targets: ['127.0.0.1:$ALLOT_COMPOSE_SCHEDULER_PORT'], labels: {service: scheduler-service}}
      - {targets: ['127.0.0.1:$ALLOT_COMPOSE_ACCOUNTING_PORT'], labels: {service: accounting-service}}
      - {targets: ['127.0.0.1:$ALLOT_COMPOSE_AGENT1_PORT', '127.0.0.1:$ALLOT_COMPOSE_AGENT2_PORT'], labels: {service: node-agent}}
YAML
  mkdir -p "$ALLOT_ROOT/deploy/prometheus"   # the rules' directory (the dashboard work fills it)
  images_present || images_build
  if [ -z "${ALLOT_PROMETHEUS_IMAGE:-}" ]; then
    if docker image inspect "$PROMETHEUS_IMAGE_DEFAULT" >/dev/null 2>&1 || timeout 60 docker pull -q "$PROMETHEUS_IMAGE_DEFAULT" >/dev/null 2>&1; then
      export ALLOT_PROMETHEUS_IMAGE=$PROMETHEUS_IMAGE_DEFAULT
    else
      export ALLOT_PROMETHEUS_IMAGE=allot/prometheus-debian:local
      if ! docker image inspect "$ALLOT_PROMETHEUS_IMAGE" >/dev/null 2>&1; then
        info "$PROMETHEUS_IMAGE_DEFAULT cannot be pulled here: building $ALLOT_PROMETHEUS_IMAGE from Debian's prometheus package"
        images_docker_build allot/prometheus-debian local "$ALLOT_ROOT/images/prometheus/Dockerfile" "$ALLOT_ROOT/images/prometheus"
      fi
    fi
  fi
  for port in "$ALLOT_COMPOSE_KAFKA_PORT" "$ALLOT_COMPOSE_KAFKA_CONTROLLER_PORT" "$ALLOT_COMPOSE_REGISTRY_PORT" \
      "$ALLOT_COMPOSE_PROMETHEUS_PORT" $(for e in $COMPOSE_SERVICES; do echo "${e##*:}"; done); do
    port_in_use "$port" && die "port $port is taken by another process; free it or set the ALLOT_COMPOSE_*_PORT variables"
  done
  return 0
}

compose_ready() { curl -sf "http://127.0.0.1:$1/q/health/ready" >/dev/null; }

compose_up() {
  local entry
  docker_check
  if [ -n "$(compose ps -q 2>/dev/null)" ]; then
    info "the compose stack already runs"; compose_status; return 0
  fi
  compose_prepare
  info "starting the compose stack (host networking, 127.0.0.1; Grafana left out: not packaged here)"
  compose up -d >"$ALLOT_COMPOSE_STATE/up.log" 2>&1 || { tail -20 "$ALLOT_COMPOSE_STATE/up.log" >&2; die "compose up failed; see $ALLOT_COMPOSE_STATE/up.log"; }
  for entry in $COMPOSE_SERVICES; do
    wait_for "${entry%%:*}" 180 compose_ready "${entry##*:}" \
      || { compose logs --tail 30 "${entry%%:*}" >&2; die "${entry%%:*} did not become ready in 180 s"; }
  done
  compose_status
}

compose_down() {
  docker_check
  compose down --remove-orphans >"$ALLOT_COMPOSE_STATE/down.log" 2>&1 || die "compose down failed; see $ALLOT_COMPOSE_STATE/down.log"
  info "compose stack stopped and removed"
}

compose_status() {
  local entry state
  for entry in $COMPOSE_SERVICES; do
    state=down; compose_ready "${entry##*:}" && state=up
    printf '%s http://127.0.0.1:%s %s\n' "${entry%%:*}" "${entry##*:}" "$state"
  done
  printf 'prometheus http://127.0.0.1:%s %s\n' "$ALLOT_COMPOSE_PROMETHEUS_PORT" \
    "$(curl -sf "http://127.0.0.1:$ALLOT_COMPOSE_PROMETHEUS_PORT/-/ready" >/dev/null && echo up || echo down)"
  echo "grafana - not run locally (not packaged here; the shipped compose/docker-compose.yml has it, profile 'grafana')"
}

# compose_token NAME [GROUPS]: a token for the compose stack, signed with its throw-away key (auth-lib's auth_mint).
compose_token() {
  # shellcheck source=bin/auth-lib.sh
  source "$ALLOT_ROOT/bin/auth-lib.sh"
  AUTH_KEY="$ALLOT_COMPOSE_STATE/secrets/signing-private-key.pem" auth_mint "$1" "${2:-}" 3600
}

# api METHOD PATH [BODY]: the budget-service's API as $COMPOSE_TOKEN; prints the body, fails on a non-2xx status.
api() {
  curl -sf -X "$1" -H 'Content-Type: application/json' -H "Authorization: Bearer $COMPOSE_TOKEN" ${3:+-d "$3"} "$API$2"
}

job_field() { api GET "/jobs/$1" | jq -r "$2"; }

# wait_job ID SECONDS JQ-CONDITION: until GET /jobs/ID satisfies the condition.
wait_job() {
  local id=$1 seconds=$2 cond=$3
  wait_for "job $id" "$seconds" sh -c "curl -sf '$API/jobs/$id' | jq -e '$cond' >/dev/null"
}

compose_smoke() {
  local id lost node agent other t0
  compose_up >/dev/null
  COMPOSE_TOKEN=$(compose_token smoke-admin allot-admins) || die "could not mint a token"
  api PUT /budgets/smoke '{"share":1}' >/dev/null || die "PUT /budgets/smoke failed"
  api PUT /budgets/smoke/team '{"share":1,"members":["smoke"]}' >/dev/null || die "PUT /budgets/smoke/team failed"
  COMPOSE_TOKEN=$(compose_token smoke) || die "could not mint a token"

  id=$(api POST /jobs '{"budget":"smoke/team","cluster":"local","replicas":1,"gpusPerReplica":2,"minRuntimeSeconds":0,"command":["sh","-c","echo hello from $ALLOT_NODE_ID; sleep 1"]}' | jq -r .id) \
    || die "POST /jobs failed"
  info "submitted $id (2 GPUs, sleep 1)"
  wait_job "$id" 60 '.state == "COMPLETED"' || die "job $id did not complete in 60 s (state $(job_field "$id" .state))"
  info "ok: $id COMPLETED on $(job_field "$id" '.placement.assignments[0].nodeId')"
  api GET "/jobs/$id/logs?replica=0" | jq -e '.text | contains("hello from")' >/dev/null \
    || die "GET /jobs/$id/logs did not return the job's output (the agent API secret shared by budget-service and agents)"
  info "ok: its output read through the API (agent API secret)"

  lost=$(api POST /jobs '{"budget":"smoke/team","cluster":"local","replicas":1,"gpusPerReplica":8,"minRuntimeSeconds":0,"command":["sh","-c","sleep 600"]}' | jq -r .id) \
    || die "POST /jobs failed"
  wait_job "$lost" 60 '.state == "RUNNING"' || die "job $lost did not start in 60 s"
  node=$(job_field "$lost" '.placement.assignments[0].nodeId')
  agent="node-agent-${node##*-}"
  other=$([ "$agent" = node-agent-1 ] && echo node-agent-2 || echo node-agent-1)
  info "submitted $lost (8 GPUs, sleep 600): RUNNING on $node; killing the container $agent"
  t0=$(date +%s)
  docker kill "$(compose ps -q "$agent")" >/dev/null || die "could not kill $agent"
  wait_job "$lost" 90 '[.history[].type] | index("JobRequeued") != null' \
    || die "job $lost was not requeued within 90 s of killing $agent (state $(job_field "$lost" .state))"
  info "ok: $lost requeued $(( $(date +%s) - t0 )) s after the kill ($(job_field "$lost" '[.history[] | select(.type=="JobLost" or .type=="JobRequeued") | .type] | join(", ")'))"
  wait_job "$lost" 60 ".state == \"RUNNING\" and .placement.assignments[0].nodeId != \"$node\"" \
    || die "job $lost did not start again on the other node ($other) in 60 s"
  info "ok: $lost RUNNING again on $(job_field "$lost" '.placement.assignments[0].nodeId') ($other)"
  api DELETE "/jobs/$lost?reason=smoke-done" >/dev/null || true
  compose start "$agent" >/dev/null 2>&1 || true
  wait_for "$agent" 120 compose_ready "$( [ "$agent" = node-agent-1 ] && echo "$ALLOT_COMPOSE_AGENT1_PORT" || echo "$ALLOT_COMPOSE_AGENT2_PORT")" \
    && info "$agent restarted"
}

# The integration test class InfrastructureTest with the broker and registry as containers (test-support's
# -Dallot.infra=testcontainers), on the images 'bin/allot images' built.
compose_testcontainers_smoke() {
  local log="$ALLOT_COMPOSE_STATE/testcontainers.log" rc=0
  info "running InfrastructureTest with -Dallot.infra=testcontainers (broker and registry as containers, host network)"
  (cd "$ALLOT_ROOT" && TESTCONTAINERS_HOST_OVERRIDE=localhost TESTCONTAINERS_RYUK_DISABLED=true \
    ./mvnw -B -ntp -pl test-support -am verify -Dallot.infra=testcontainers -Dtest=InfrastructureTest \
    -Dsurefire.failIfNoSpecifiedTests=false) >"$log" 2>&1 || rc=$?
  # Ryuk is off: remove what a test JVM that died before its shutdown hook left behind.
  docker ps -aq --filter label=dev.allot.infra=testcontainers | xargs -r docker rm -f >/dev/null
  grep -E 'Tests run:.*InfrastructureTest|^\[(INFO|ERROR)\] Tests run:' "$log" | tail -2 >&2
  [ "$rc" = 0 ] || die "InfrastructureTest under Testcontainers failed; see $log"
  grep -q '^allot-infra: testcontainers:' "$log" || die "InfrastructureTest did not run against containers; see $log"
  grep '^allot-infra: testcontainers:' "$log" | head -1 >&2
  info "ok: InfrastructureTest passed against the containers"
}
