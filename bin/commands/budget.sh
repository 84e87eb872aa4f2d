# summary: tree | put PATH SHARE | rm PATH | submit BUDGET GPUS MIN_RUNTIME_S CMD... | job ID | cancel ID | queue [CLUSTER] — the budget-service API from the shell
# usage: bin/allot budget tree|put PATH SHARE|rm PATH|submit BUDGET GPUS MIN_RUNTIME_S CMD...|job ID|cancel ID|queue [CLUSTER]
# help:   tree                 the budget tree (GET /budgets)
# help:   put PATH SHARE       define or re-share an account (PUT /budgets/PATH)
# help:   rm PATH              remove an account (DELETE /budgets/PATH)
# help:   submit BUDGET GPUS MIN_RUNTIME_S CMD...   submit a job; env CLUSTER (local), REPLICAS (1), RESUMABLE (true)
# help:   job ID               one job (GET /jobs/ID)
# help:   cancel ID            cancel a job (DELETE /jobs/ID)
# help:   queue [CLUSTER]      the queue with positions and reasons (GET /queue?cluster=CLUSTER, default local)
# help: The API is http://127.0.0.1:8081 unless ALLOT_BUDGET_URL is set.
# shellcheck shell=bash
BUDGET_URL="${ALLOT_BUDGET_URL:-http://127.0.0.1:$BUDGET_PORT}"
command -v curl >/dev/null || die "curl is needed"
pretty() { if command -v python3 >/dev/null; then python3 -m json.tool; else cat; fi; }
call() { curl -sS -H 'Content-Type: application/json' -H "X-Allot-User: ${USER:-cli}" -H "X-Allot-Submitter: ${USER:-cli}" "$@"; echo; }
json_array() { local first=1 arg; printf '['; for arg in "$@"; do [ $first = 1 ] || printf ','; first=0; printf '"%s"' "${arg//\"/\\\"}"; done; printf ']'; }
sub="${1:-tree}"; shift || true
case "$sub" in
  tree)   call "$BUDGET_URL/budgets" | pretty ;;
  put)    [ $# -eq 2 ] || die "usage: bin/allot budget put PATH SHARE"
          call -X PUT -d "{\"share\":$2}" "$BUDGET_URL/budgets/$1" ;;
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
