# Development identity for the local stack: an RS256 signing key under $ALLOT_HOME/auth and bearer tokens
# signed with it, as an identity provider would issue them (sourced by 'bin/allot up' and 'bin/allot login').
# shellcheck shell=bash

AUTH_DIR="$ALLOT_HOME/auth"
AUTH_KEY="$AUTH_DIR/signing-key.pem"        # private, mode 0600: whoever reads it can be anyone
AUTH_PUBLIC_KEY="$AUTH_DIR/public-key.pem"  # what the services verify tokens with
AUTH_ISSUER="${ALLOT_AUTH_ISSUER:-allot-dev}"
AUTH_AUDIENCE="${ALLOT_AUTH_AUDIENCE:-allot}"
# The token 'bin/allot login' stores and 'bin/allot budget' (and any client) sends: one line, mode 0600.
AUTH_TOKEN_FILE="$ALLOT_HOME/token"

auth_ensure_key() {
  command -v openssl >/dev/null || die "openssl is needed to make the development signing key"
  mkdir -p "$AUTH_DIR" && chmod 700 "$AUTH_DIR"
  if [ ! -s "$AUTH_KEY" ]; then
    (umask 077; openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$AUTH_KEY" 2>/dev/null) \
      || die "could not make the signing key $AUTH_KEY"
    info "made the development signing key $AUTH_KEY (mode 0600)"
  fi
  chmod 600 "$AUTH_KEY"
  [ -s "$AUTH_PUBLIC_KEY" ] && [ "$AUTH_PUBLIC_KEY" -nt "$AUTH_KEY" ] \
    || openssl pkey -in "$AUTH_KEY" -pubout -out "$AUTH_PUBLIC_KEY" 2>/dev/null || die "could not write $AUTH_PUBLIC_KEY"
}

# The -D options that make a service trust the development tokens.
auth_service_options() {
  printf '%s\n' "-Dmp.jwt.verify.publickey.location=$AUTH_PUBLIC_KEY" "-Dmp.jwt.verify.issuer=$AUTH_ISSUER" \
    "-Dmp.jwt.verify.audiences=$AUTH_AUDIENCE"
}

auth_b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }

# auth_mint NAME GROUPS_CSV TTL_SECONDS: prints a signed token.
auth_mint() {
  local name=$1 groups=$2 ttl=$3 now header claims input signature group list=""
  [[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$ ]] || die "user '$name': 1-128 of [A-Za-z0-9_.@-], starting with a letter or digit"
  [[ "$ttl" =~ ^[0-9]+$ ]] && [ "$ttl" -gt 0 ] || die "--ttl needs a number of seconds > 0"
  IFS=, read -ra group_list <<<"$groups"
  for group in "${group_list[@]}"; do
    [ -n "$group" ] || continue
    [[ "$group" =~ ^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$ ]] || die "group '$group': 1-128 of [A-Za-z0-9_.@-]"
    list="$list${list:+,}\"$group\""
  done
  now=$(date +%s)
  header='{"alg":"RS256","typ":"JWT"}'
  claims=$(printf '{"iss":"%s","aud":"%s","sub":"%s","upn":"%s","groups":[%s],"iat":%d,"exp":%d,"jti":"%s"}' \
    "$AUTH_ISSUER" "$AUTH_AUDIENCE" "$name" "$name" "$list" "$now" $((now + ttl)) "$(openssl rand -hex 12)")
  input="$(printf '%s' "$header" | auth_b64url).$(printf '%s' "$claims" | auth_b64url)"
  signature=$(printf '%s' "$input" | openssl dgst -sha256 -sign "$AUTH_KEY" | auth_b64url) || die "signing failed"
  printf '%s.%s\n' "$input" "$signature"
}

# The token a client sends: ALLOT_TOKEN, else the file 'bin/allot login' wrote.
auth_token() {
  if [ -n "${ALLOT_TOKEN:-}" ]; then printf '%s' "$ALLOT_TOKEN"; return 0; fi
  [ -s "$AUTH_TOKEN_FILE" ] || return 1
  tr -d '\n' <"$AUTH_TOKEN_FILE"
}
