# 'bin/allot up --demo': a small budget tree, a mix of jobs, and a live view (sourced).
# shellcheck shell=bash

BUDGET_API="http://127.0.0.1:$BUDGET_PORT"
# The demo's people (tokens signed with the development key): an admin sets up the tree; 'lead' owns lab and
# re-shares its teams; alice (team-a), bob (team-b) and carol (group team-c) submit to their team.
demo_tokens() {
  DEMO_ADMIN=$(auth_mint admin allot-admins 86400)
  DEMO_LEAD=$(auth_mint lead "" 86400)
  DEMO_ALICE=$(auth_mint alice "" 86400)
  DEMO_BOB=$(auth_mint bob "" 86400)
  DEMO_CAROL=$(auth_mint carol team-c 86400)
}

# demo_put_budget TOKEN PATH BODY
demo_put_budget() {
  curl -sf -X PUT -H 'Content-Type: application/json' -H "Authorization: Bearer $1" -d "$3" "$BUDGET_API/budgets/$2" \
    >/dev/null || die "PUT /budgets/$2 failed"
}

# demo_submit USER BUDGET REPLICAS GPUS MIN_RUNTIME_S RESUMABLE SECONDS [PRIORITY]
demo_submit() {
  local token body
  case $1 in alice) token=$DEMO_ALICE ;; bob) token=$DEMO_BOB ;; *) token=$DEMO_CAROL ;; esac
  shift
  body=$(printf '{"budget":"%s","cluster":"local","replicas":%d,"gpusPerReplica":%d,"minRuntimeSeconds":%d,"resumable":%s,"priority":%d,"command":["sh","-c","i=0; while [ $i -lt %d ]; do sleep 1; i=$((i+1)); [ $((i %% 10)) -eq 0 ] && touch \\"$ALLOT_CHECKPOINT_DIR/checkpoint\\"; done"],"expectedDurationSeconds":%d}' \
    "$1" "$2" "$3" "$4" "$5" "${7:-0}" "$6" "$6")
  curl -sf -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $token" -d "$body" \
    "$BUDGET_API/jobs" >/dev/null || info "POST /jobs for $1 failed"
}

demo_cluster_known() {
  curl -sf -H "Authorization: Bearer $DEMO_VIEWER" "$BUDGET_API/budgets" | grep -q '"clusters":{"local"'
}

demo_run() {
  info "demo: budget tree lab/{team-a,team-b,team-c}, shares 1:1:1; team-a arrives first and over-uses"
  info "demo: admin defines lab (owner: lead); lead defines the teams (members alice, bob, group:team-c)"
  demo_tokens
  demo_put_budget "$DEMO_ADMIN" lab '{"share":1,"owners":["lead"]}'
  demo_put_budget "$DEMO_LEAD" lab/team-a '{"share":1,"members":["alice"]}'
  demo_put_budget "$DEMO_LEAD" lab/team-b '{"share":1,"members":["bob"]}'
  demo_put_budget "$DEMO_LEAD" lab/team-c '{"share":1,"members":["group:team-c"]}'
  # the view reads as lead; 'bin/allot login --user NAME' gives you a token of your own
  DEMO_VIEWER=$DEMO_LEAD
  # jobs for a cluster no node is known of are refused: wait until the agent's nodes are in the projection
  wait_for "cluster local" 60 demo_cluster_known || die "the budget-service knows no node of cluster 'local'"
  local i
  # team-a: long resumable training jobs that fill the cluster (becomes over-served).
  for i in 1 2 3 4 5 6; do demo_submit alice lab/team-a 1 8 60 true 900; done
  # team-a: free (unallocated) sweeps that soak up idle GPUs.
  for i in 1 2 3; do demo_submit alice lab/team-a 1 2 0 true 600; done
  sleep 5
  # team-b: a two-node gang and short jobs; team-c: debug jobs (few GPUs, short minimum runtime).
  demo_submit bob lab/team-b 2 8 120 true 600
  for i in 1 2 3; do demo_submit bob lab/team-b 1 4 60 false 120; done
  for i in 1 2 3 4; do demo_submit carol lab/team-c 1 1 30 false 45 1; done
  info "demo: jobs submitted; live view every 2 s (q or Ctrl-C to leave; 'bin/allot down' stops everything)"
  trap 'echo; info "left the live view; the system keeps running"; exit 0' INT
  # the live view is the CLI's 'top' (bin/allot top); the plain view below only if the CLI cannot be built
  # shellcheck source=bin/cli-lib.sh
  source "$ALLOT_ROOT/bin/cli-lib.sh"
  if ( cli_build ); then
    # as lead (the API answers anonymous requests 401)
    ALLOT_TOKEN="$DEMO_VIEWER" "$JAVA" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m -jar "$CLI_JAR" top --server "$BUDGET_API" --cluster local \
      || true
    info "left the live view; the system keeps running"
    return 0
  fi
  while true; do
    demo_view
    sleep 2
  done
}

demo_view() {
  local queue budgets
  queue=$(curl -sf -H "Authorization: Bearer $DEMO_VIEWER" "$BUDGET_API/queue?cluster=local" || echo '{}')
  budgets=$(curl -sf -H "Authorization: Bearer $DEMO_VIEWER" "$BUDGET_API/budgets" || echo '[]')
  python3 - "$queue" "$budgets" <<'PY'
import json, sys
queue, budgets = json.loads(sys.argv[1] or "{}"), json.loads(sys.argv[2] or "[]")
print("\033[2J\033[H", end="")
print("Allot demo — cluster 'local'")
print("\nBudgets on 'local' (7-day window; ratio = charged / entitled, lower is served first)")
print(f"  {'account':<16}{'share':>7}{'entitled GPUs':>15}{'charged GPU-h':>15}{'free GPU-h':>12}{'ratio':>11}")
def walk(nodes, depth=0):
    for n in nodes:
        ent = (n.get("entitlement") or {}).get("local") or {}
        usage = (n.get("usage") or {}).get("local") or {}
        ratio = usage.get("ratio")
        name = "  " * depth + n.get("name", n.get("path", "?"))
        print(f"  {name:<16}{n.get('share', 0):>7}{ent.get('gpus', 0) or 0:>15.1f}"
              f"{usage.get('chargedGpuHours', 0) or 0:>15.3f}{usage.get('unallocatedGpuHours', 0) or 0:>12.3f}"
              f"{(f'{ratio:.3g}' if isinstance(ratio, (int, float)) else '-'):>11}")
        walk(n.get("children", []), depth + 1)
walk(budgets.get("accounts", []) if isinstance(budgets, dict) else budgets)
entries = queue.get("entries", [])
print("\nQueue")
for e in entries:
    pos = e.get("position")
    where = f"#{pos}" if pos else "RUN"
    print(f"  {where:>4} {e.get('jobId','')[:12]:<13}{e.get('account',''):<14}{e.get('gpus',0):>3} GPUs  {e.get('reason','')[:90]}")
if not entries:
    print("  (empty)")
PY
}
