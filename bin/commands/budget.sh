# summary: tree | put PATH SHARE [--owners ..] [--members ..] | rm PATH | submit BUDGET GPUS MIN_RUNTIME_S CMD... | job ID | cancel ID | queue [CLUSTER] — the budget-service API from the shell
# usage: bin/allot budget tree|put PATH SHARE [--owners u1,group:g] [--members u2,group:h]|rm PATH|submit BUDGET GPUS MIN_RUNTIME_S CMD...|job ID|cancel ID|queue [CLUSTER]
# help:   tree                 the budget tree (GET /budgets)
# help:   put PATH SHARE [--owners LIST] [--members LIST]
# help:                        define or re-share an account (PUT /budgets/PATH); LIST: user names or group:NAME,
# help:                        comma-separated; owners and members are kept as they are when not given
# help:   rm PATH              remove an account (DELETE /budgets/PATH)
# help:   submit BUDGET GPUS MIN_RUNTIME_S CMD...   submit a job; env CLUSTER (local), REPLICAS (1), RESUMABLE (true)
# help:   job ID               one job (GET /jobs/ID)
# help:   cancel ID            cancel a job (DELETE /jobs/ID)
# help:   queue [CLUSTER]      the queue with positions and reasons (GET /queue?cluster=CLUSTER, default local)
# help: The API is http://127.0.0.1:8081 unless ALLOT_BUDGET_URL is set. Calls carry the bearer token of
# help: ALLOT_TOKEN, else of $ALLOT_HOME/token ('bin/allot login --user NAME' writes it).
# shellcheck shell=bash
# shellcheck source=bin/auth-lib.sh
source "$ALLOT_ROOT/bin/auth-lib.sh"
BUDGET_URL="${ALLOT_BUDGET_URL:-http://127.0.0.1:$BUDGET_PORT}"
command -v curl >/dev/null || die "curl is needed"
token=$(auth_token) || die "no token: run 'bin/allot login --user NAME' (or set ALLOT_TOKEN)"
pretty() { if command -v python3 >/dev/null; then python3 -m json.tool; else cat; fi; }
call() { curl -sS -H 'Content-Type: application/json' -H "Authorization: Bearer $token" "$@"; echo; }
json_array() { local first=1 arg; printf '['; for arg in "$@"; do [ $first = 1 ] || printf ','; first=0; printf '"%s"' "${arg//\"/\\\"}"; done; printf ']'; }
sub="${1:-tree}"; shift || true
case "$sub" in
  tree)   call "$BUDGET_URL/budgets" | pretty ;;
  put)    [ $# -ge 2 ] || die "usage: bin/allot budget put PATH SHARE [--owners LIST] [--members LIST]"
          path=$1 body="{\"share\":$2"; shift 2
          while [ $# -gt 0 ]; do
            case "$1" in
              --owners|--members) IFS=, read -ra list <<<"${2-}"; body="$body,\"${1#--}\":$(json_array "${list[@]}")"; shift 2 ;;
              *) die "usage: bin/allot budget put PATH SHARE [--owners LIST] [--members LIST]" ;;
            esac
          done
          call -X PUT -d "$body}" "$BUDGET_URL/budgets/$path" ;;
  rm)     [ $# -eq 1 ] || die "usage: bin/allot budget rm PATH"
          call -X DELETE "$BUDGET_URL/budgets/$1" ;;
  submit) [ $# -ge 4 ] || die "usage: bin/allot budget submit BUDGET GPUS MIN_RUNTIME_S CMD... (env CLUSTER, REPLICAS, RESUMABLE)"
          budget=$1 gpus=$2 min=$3; shift 3
          call -X POST "$BUDGET_URL/jobs" -d "{\"budget\":\"$budget\",\"cluster\":\"${CLUSTER:-local}\",\"replicas\":${REPLICAS:-1},\"gpusPerReplica\":$gpus,\"minRuntimeSeconds\":$min,\"resumable\":${RESUMABLE:-true},\"command\":$(json_array "$@")}" ;;
  job)    [ $# -eq 1 ] || die "usage: bin/allot budget job ID"; call "$BUDGET_URL/jobs/$1" | pretty ;;
  cancel) [ $# -eq 1 ] || die "usage: bin/allot budget cancel ID"; call -X DELETE "$BUDGET_URL/jobs/$1" ;;
  queue)  call "$BUDGET_URL/queue?cluster=${1:-local}" | pretty ;;
  *)      die "unknown budget subcommand '$sub' (tree, put, rm, submit, job, cancel, queue)" ;;
esac
