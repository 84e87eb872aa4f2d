# Shared helpers for bin/allot and its subcommands (sourced, not run).
# shellcheck shell=bash

ALLOT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# absolute: services run from their own directories (bin/stack-lib.sh) and are given paths under it
ALLOT_HOME="$(realpath -m "${ALLOT_HOME:-$ALLOT_ROOT/.allot}")"
REGISTRY_VERSION=3.3.3
KAFKA_VERSION=4.1.2

# Fixed loopback ports of the local stack.
KAFKA_PORT="${ALLOT_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${ALLOT_KAFKA_CONTROLLER_PORT:-9093}"
REGISTRY_PORT="${ALLOT_REGISTRY_PORT:-8080}"
BUDGET_PORT="${ALLOT_BUDGET_PORT:-8081}"
SCHEDULER_PORT="${ALLOT_SCHEDULER_PORT:-8082}"
ACCOUNTING_PORT="${ALLOT_ACCOUNTING_PORT:-8083}"
AGENT_PORT="${ALLOT_AGENT_PORT:-8084}"
# The standby scheduler of 'bin/allot up --schedulers 2'.
SCHEDULER2_PORT="${ALLOT_SCHEDULER2_PORT:-8085}"

# The local broker's security: scram (the default: SASL/SCRAM-SHA-512 and ACLs, one principal per service,
# credentials under $ALLOT_HOME/kafka/credentials) or plaintext (no authentication). Fixed when the broker's
# storage is formatted: switching needs 'bin/allot infra reset'.
KAFKA_SECURITY="${ALLOT_KAFKA_SECURITY:-scram}"
KAFKA_CREDENTIALS_DIR="$ALLOT_HOME/kafka/credentials"

# The services of the local stack, name:module:port, in start order (the agent last, once the
# scheduler listens). Each keeps its state in $ALLOT_HOME/<name>, its log and pid file in SERVICES_DIR.
STACK="budget-service:budget-service:$BUDGET_PORT accounting-service:accounting-service:$ACCOUNTING_PORT scheduler-service:scheduler-service:$SCHEDULER_PORT node-agent:node-agent:$AGENT_PORT"
SERVICES_DIR="$ALLOT_HOME/services"

die() { echo "allot: $*" >&2; exit 1; }
info() { echo "allot: $*" >&2; }

# A JDK 21 or newer: JAVA_HOME first, then /usr/lib/jvm/*, newest first.
java_major() {
  "$1/bin/java" -version 2>&1 | awk -F'"' '/version/ { split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit }'
}
find_jdk() {
  local candidate major
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    major=$(java_major "$JAVA_HOME")
    if [ "${major:-0}" -ge 21 ]; then echo "$JAVA_HOME"; return 0; fi
  fi
  for candidate in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    candidate="${candidate%/}"
    [ -x "$candidate/bin/java" ] && [ -x "$candidate/bin/javac" ] || continue
    major=$(java_major "$candidate")
    if [ "${major:-0}" -ge 21 ]; then echo "$candidate"; return 0; fi
  done
  return 1
}
use_jdk() {
  local jdk
  jdk=$(find_jdk) || die "no JDK 21 or newer found (looked at JAVA_HOME and /usr/lib/jvm/*); install one, e.g. apt-get install openjdk-21-jdk-headless, or set JAVA_HOME"
  export JAVA_HOME="$jdk"
  export PATH="$JAVA_HOME/bin:$PATH"
  JAVA="$JAVA_HOME/bin/java"
}

mvnw() { (cd "$ALLOT_ROOT" && ./mvnw -q -B "$@"); }

# module_siblings MODULE: MODULE and the sibling modules it is built from, transitively (the dev.allot dependencies
# of its pom outside test scope): a jar built from kafka-edge is stale when kafka-edge's sources change.
module_siblings() {
  local todo=("$1") seen=" " m
  while [ ${#todo[@]} -gt 0 ]; do
    m=${todo[0]}; todo=("${todo[@]:1}")
    case "$seen" in *" $m "*) continue ;; esac
    seen="$seen$m "
    echo "$m"
    # shellcheck disable=SC2207
    todo+=($(awk '
      /<dependency>/ { dep = 1; g = ""; a = ""; s = "" }
      dep && /<groupId>/ { g = $0; sub(/.*<groupId>/, "", g); sub(/<\/groupId>.*/, "", g) }
      dep && /<artifactId>/ { a = $0; sub(/.*<artifactId>/, "", a); sub(/<\/artifactId>.*/, "", a) }
      dep && /<scope>/ { s = $0; sub(/.*<scope>/, "", s); sub(/<\/scope>.*/, "", s) }
      /<\/dependency>/ { dep = 0; if (g == "dev.allot" && s != "test") { sub(/^allot-/, "", a); print a } }
    ' "$ALLOT_ROOT/$m/pom.xml"))
  done
}

# older_than_sources FILE MODULE...: whether FILE is missing, or older than a main source or pom of the modules or
# of a sibling they are built from, or than the parent pom.
older_than_sources() {
  local file=$1 m paths=("$ALLOT_ROOT/pom.xml"); shift
  [ -f "$file" ] || return 0
  for m in $(for m in "$@"; do module_siblings "$m"; done | sort -u); do
    paths+=("$ALLOT_ROOT/$m/src/main" "$ALLOT_ROOT/$m/pom.xml")
  done
  [ -n "$(find "${paths[@]}" -newer "$file" -type f -print -quit 2>/dev/null)" ]
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# wait_for NAME SECONDS COMMAND...: retries COMMAND until it succeeds.
wait_for() {
  local name=$1 seconds=$2; shift 2
  local deadline=$(( $(date +%s) + seconds ))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then return 1; fi
    sleep 0.2
  done
}

# stop_pidfile FILE NAME: TERM, then KILL after 15 s; removes the file.
stop_pidfile() {
  local file=$1 name=$2 pid i
  if ! pid_alive "$file"; then rm -f "$file"; return 0; fi
  pid=$(cat "$file")
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 75); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; info "$name did not stop in 15 s; killed"; fi
  rm -f "$file"
}

# kafka_client_config PRINCIPAL: the Kafka client properties file of PRINCIPAL (analyst, admin, budget-service,
# ...) on the local broker; empty on a plaintext broker. Tools take it as ALLOT_KAFKA_CONFIG.
kafka_client_config() {
  [ "$KAFKA_SECURITY" = plaintext ] && return 0
  local file="$KAFKA_CREDENTIALS_DIR/$1.properties"
  [ -f "$file" ] || die "no Kafka credentials for '$1' in $KAFKA_CREDENTIALS_DIR; 'bin/allot infra up' creates them (ALLOT_KAFKA_SECURITY=plaintext for a broker without)"
  echo "$file"
}

# kafka_service_config PRINCIPAL: writes the service's Kafka authentication (kafka.security.protocol,
# kafka.sasl.mechanism, kafka.sasl.jaas.config) to $SERVICES_DIR/PRINCIPAL.kafka.properties (mode 0600) and
# prints its path, for -Dquarkus.config.locations: the password is on no command line and in no environment
# (a node agent's jobs inherit its environment).
kafka_service_config() {
  local file out="$SERVICES_DIR/$1.kafka.properties"
  file=$(kafka_client_config "$1")
  mkdir -p "$SERVICES_DIR"
  (
    umask 077
    if [ -z "$file" ]; then
      echo "kafka.security.protocol=PLAINTEXT"
    else
      sed -n 's/^\(security\.protocol\|sasl\.mechanism\|sasl\.jaas\.config\)=/kafka.\1=/p' "$file"
    fi > "$out"
  )
  echo "$out"
}
