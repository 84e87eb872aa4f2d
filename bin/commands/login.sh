# summary: --user NAME [--groups g1,g2] [--admin|--operator] [--ttl S] [--print] — a development bearer token for the API
# usage: bin/allot login --user NAME [--groups g1,g2] [--admin|--operator] [--ttl 3600] [--print]
# help: Mints a short-lived RS256 token (default 1 h) for NAME, signed with the local stack's development key
# help: ($ALLOT_HOME/auth/signing-key.pem, made by 'bin/allot up'), and stores it in $ALLOT_HOME/token (mode 0600),
# help: where 'bin/allot budget' and other clients read it; --print prints it instead, for curl:
# help:   curl -H "Authorization: Bearer $(bin/allot login --user alice --groups team-a --print)" localhost:8081/budgets
# help: --admin adds group allot-admins (everything), --operator group allot-operators (drain, undrain).
# help: Who may do what: budget-service/README.md. A real deployment takes tokens from its identity provider.
# shellcheck shell=bash
# shellcheck source=bin/auth-lib.sh
source "$ALLOT_ROOT/bin/auth-lib.sh"
user="" groups="" ttl=3600 print=false
while [ $# -gt 0 ]; do
  case "$1" in
    --user) user=${2:?--user needs a name}; shift 2 ;;
    --groups) groups=${2:?--groups needs g1,g2}; shift 2 ;;
    --admin) groups="${groups:+$groups,}allot-admins"; shift ;;
    --operator) groups="${groups:+$groups,}allot-operators"; shift ;;
    --ttl) ttl=${2:?--ttl needs seconds}; shift 2 ;;
    --print) print=true; shift ;;
    *) die "usage: bin/allot login --user NAME [--groups g1,g2] [--admin|--operator] [--ttl 3600] [--print]" ;;
  esac
done
[ -n "$user" ] || die "usage: bin/allot login --user NAME [--groups g1,g2] [--admin|--operator] [--ttl 3600] [--print]"
auth_ensure_key
token=$(auth_mint "$user" "$groups" "$ttl")
if $print; then
  printf '%s\n' "$token"
else
  (umask 077; printf '%s\n' "$token" >"$AUTH_TOKEN_FILE")
  info "logged in as $user${groups:+ (groups $groups)} until $(date -d "@$(( $(date +%s) + ttl ))" '+%H:%M:%S'); token in $AUTH_TOKEN_FILE"
fi
