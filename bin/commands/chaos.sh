# summary: [--rate 2] [--teams 3] — kill -9 each component in turn under a stream of submissions, then judge the log
# usage: bin/allot chaos [--rate 2] [--teams 3] [--down 5] [--gap 20] [--settle 300] [--only "NAME ..."] | --check RUN_DIR
# help: Against the stack 'bin/allot up' started (with '--schedulers 2' the standby is killed too): defines the teams
# help: chaos/team-1..N, submits RATE jobs a second through the API (short sleeps of 1-4 GPUs, free and allocated, a few
# help: two-node gangs, some meant to exit 3), and meanwhile kills with SIGKILL, in turn, the standby scheduler, the
# help: active scheduler, the accounting-service, the budget-service, the node agent, the broker and its controller
# help: (when it runs apart, as 'bin/allot infra up' makes it); each stays down
# help: DOWN seconds and is brought back with 'bin/allot restart NAME', GAP seconds apart. Then it reads the log alone
# help: (as the read-only analyst) until every accepted job has its final verdict and the usage sums agree, or SETTLE
# help: seconds pass, and prints: submissions submitted, acknowledged, accepted, completed; lost; stuck; wrong verdicts
# help: (FAILED for a job whose process exited 0, COMPLETED for one that exited 3); GPU-seconds double-booked by the
# help: scheduler's placements and physically shared by two processes (the agents' start/exit reports); usage mismatch
# help: (the accounting-service's budget-usage against the agents' UsageReported); dead letters; recovery seconds per
# help: kill (until health says ready; for the broker and its controller, until their ports answer) and until every component serves
# help: again (the run's recoveries file; one still down after ALLOT_READY_TIMEOUT, 120 s, is named). Exit 0 when
# help: the targets are met (0 lost, 0 stuck, 0 wrong verdicts, 0 double-booked or shared, sums exact), 1 if not. Files of the run (the
# help: acknowledged ids, the kill times, the submitter's log) in .allot/chaos/<time>/. --only takes the components to
# help: kill (kafka kafka-controller budget-service accounting-service scheduler-active scheduler-standby node-agent).
# help: --check RUN_DIR
# help: judges an earlier run again from the log (e.g. after an operator's further restart), killing nothing.
# shellcheck shell=bash
# shellcheck source=bin/stack-lib.sh
source "$ALLOT_ROOT/bin/stack-lib.sh"
use_jdk
rate=2 teams=3 down=5 gap=20 settle=300
# the standby first: the active one, killed next, comes back as the standby, so both instances die once
only="scheduler-standby scheduler-active accounting-service budget-service node-agent kafka kafka-controller" check_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate=${2:?--rate needs a number}; shift 2 ;;
    --teams) teams=${2:?--teams needs a number}; shift 2 ;;
    --down) down=${2:?--down needs seconds}; shift 2 ;;
    --gap) gap=${2:?--gap needs seconds}; shift 2 ;;
    --settle) settle=${2:?--settle needs seconds}; shift 2 ;;
    --only) only=${2:?--only needs component names}; shift 2 ;;
    --check) check_dir=${2:?--check needs a run directory}; shift 2 ;;
    *) die "usage: bin/allot chaos [--rate 2] [--teams 3] [--down 5] [--gap 20] [--settle 300] [--only \"NAME ...\"]" ;;
  esac
done

# Every component must serve before the first kill: the run judges recovery, not a half-started stack.
kafka_serving || die "the broker (or its controller) is not running: 'bin/allot up' first"
for entry in $(stack_entries); do
  IFS=: read -r name _ port <<<"$entry"
  pid_alive "$SERVICES_DIR/$name.pid" && service_ready "$port" || die "$name is not up: 'bin/allot up' first ('bin/allot status')"
done

CHAOS_JAR="$ALLOT_ROOT/chaos/target/allot-chaos.jar"
if older_than_sources "$CHAOS_JAR" chaos; then
  info "building the chaos checker (chaos/target/allot-chaos.jar)"
  # -am: a fresh clone has none of its sibling modules (schemas, kafka-edge) installed.
  mvnw -o -pl chaos -am package -DskipTests || mvnw -pl chaos -am package -DskipTests || die "could not build the chaos checker"
fi
# chaos_check RUN_DIR: reads the log until it settles, judges the run of RUN_DIR, prints (and keeps) the report.
chaos_check() {
  info "chaos: reading the log until it settles (at most ${settle}s)"
  ALLOT_BOOTSTRAP="127.0.0.1:$KAFKA_PORT" ALLOT_REGISTRY_URL="http://127.0.0.1:$REGISTRY_PORT" \
    ALLOT_KAFKA_CONFIG="${ALLOT_KAFKA_CONFIG:-$(kafka_client_config analyst)}" \
    chaos_java check --since "$(cat "$1/since")" --acknowledged "$1/acknowledged" --recoveries "$1/recoveries" \
    --settle "$settle" | tee "$1/report"
  exit "${PIPESTATUS[0]}"
}
chaos_java() { "$JAVA" -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$CHAOS_JAR" "$@"; }
now_ms() { date +%s%3N; }
if [ -n "$check_dir" ]; then
  [ -s "$check_dir/since" ] || die "$check_dir is not a chaos run's directory (no 'since' file)"
  chaos_check "$check_dir"
fi

run_dir="$ALLOT_HOME/chaos/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$run_dir"
api="http://127.0.0.1:$BUDGET_PORT"
admin_token=$(auth_mint admin allot-admins 86400)
chaos_token=$(auth_mint chaos "" 86400)
put_budget() {
  curl -sf -X PUT -H 'Content-Type: application/json' -H "Authorization: Bearer $admin_token" -d "$2" "$api/budgets/$1" \
    >/dev/null || die "PUT /budgets/$1 failed"
}
put_budget chaos '{"share":1}'
team_list=""
for ((i = 1; i <= teams; i++)); do
  put_budget "chaos/team-$i" '{"share":1,"members":["chaos"]}'
  team_list="$team_list${team_list:+,}chaos/team-$i"
done

since=$(now_ms)
echo "$since" >"$run_dir/since"
info "chaos: $rate submissions/s for $team_list; kills: $only (down ${down}s, ${gap}s apart); files in $run_dir"
ALLOT_TOKEN="$chaos_token" chaos_java submit --api "$api" --cluster local --teams "$team_list" --rate "$rate" \
  --seed "$since" --acknowledged "$run_dir/acknowledged" --stop-file "$run_dir/stop" >"$run_dir/submit.log" 2>&1 &
submitter=$!
trap 'touch "$run_dir/stop"' EXIT
sleep "$gap"   # a steady stream before the first kill

# scheduler_with_role ROLE: the scheduler instance whose health says active (not standby) or standby.
scheduler_with_role() {
  local entry name port health
  for entry in $(stack_entries); do
    IFS=: read -r name _ port <<<"$entry"
    case $name in scheduler-service*) ;; *) continue ;; esac
    health=$(curl -sf "$(service_url "$port")/q/health/ready" 2>/dev/null) || continue
    if grep -q '"role" *: *"standby"' <<<"$health"; then
      [ "$1" = standby ] && { echo "$name"; return 0; }
    else
      [ "$1" = active ] && { echo "$name"; return 0; }
    fi
  done
  return 1
}

# stack_not_ready: the services whose health does not say ready (a standby scheduler is ready).
stack_not_ready() {
  local entry name port
  for entry in $(stack_entries); do
    IFS=: read -r name _ port <<<"$entry"
    service_ready "$port" || printf ' %s' "$name"
  done
  kafka_running && port_in_use "$KAFKA_PORT" || printf ' kafka'
  ! controller_apart || { controller_running && port_in_use "$KAFKA_CONTROLLER_PORT"; } || printf ' kafka-controller'
}
stack_all_ready() { [ -z "$(stack_not_ready)" ]; }

for target in $only; do
  case $target in
    scheduler-active) name=$(scheduler_with_role active) || die "no active scheduler answers" ;;
    scheduler-standby) name=$(scheduler_with_role standby) || { info "chaos: no standby scheduler ('bin/allot up --schedulers 2'); skipped"; continue; } ;;
    *) name=$target ;;
  esac
  case $name in
    kafka) pidfile="$KAFKA_DIR/kafka.pid" ;;
    kafka-controller)
      controller_apart || { info "chaos: the broker's controller runs in the broker's process; skipped"; continue; }
      pidfile="$KAFKA_DIR/controller.pid" ;;
    *) pidfile="$SERVICES_DIR/$name.pid" ;;
  esac
  pid_alive "$pidfile" || die "$name is not running"
  killed=$(now_ms)
  kill -9 "$(cat "$pidfile")"
  info "chaos: killed $name (pid $(cat "$pidfile")) with SIGKILL; back in ${down}s"
  sleep "$down"
  restarted=$(now_ms)
  ( stack_restart "$name" >/dev/null ) || die "bin/allot restart $name failed; see $SERVICES_DIR/$name.log"
  ready=$(now_ms)
  echo "$name $killed $restarted $ready" >>"$run_dir/recoveries"
  info "chaos: $name serving again $(( (ready - killed) / 1000 )) s after the kill ($(( (ready - restarted) / 1000 )) s after its restart)"
  # The others too: a component may serve while another fails because of the kill (e.g. a scheduler after the broker's).
  if wait_for "the stack" "${ALLOT_READY_TIMEOUT:-120}" stack_all_ready; then
    all=$(now_ms)
    echo "# $name: every component serving $(( (all - killed) / 1000 )) s after the kill" >>"$run_dir/recoveries"
    info "chaos: every component serving $(( (all - killed) / 1000 )) s after the kill of $name"
  else
    echo "# $name: not serving ${ALLOT_READY_TIMEOUT:-120} s after $name's restart:$(stack_not_ready)" >>"$run_dir/recoveries"
    info "chaos: ${ALLOT_READY_TIMEOUT:-120} s after $name's restart, still not serving:$(stack_not_ready)"
  fi
  sleep "$gap"
done

touch "$run_dir/stop"
wait "$submitter" || true
tail -1 "$run_dir/submit.log" >&2
chaos_check "$run_dir"
