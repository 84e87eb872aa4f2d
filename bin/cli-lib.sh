# The user CLI (cli/ module) behind 'bin/allot submit|jobs|why|shares|usage|nodes|cancel|drain|undrain|
# history|logs|top' (sourced): builds cli/target/allot-cli.jar when missing or older than its sources,
# then runs it. The API is $ALLOT_SERVER, else $ALLOT_BUDGET_URL, else the local stack's budget-service.
# shellcheck shell=bash
use_jdk
CLI_JAR="$ALLOT_ROOT/cli/target/allot-cli.jar"
cli_build() {
  if older_than_sources "$CLI_JAR" cli; then
    info "building the CLI (cli/target/allot-cli.jar)"
    mvnw -pl cli -am package -DskipTests >&2 || die "CLI build failed"
  fi
}
# run_cli COMMAND ARGS...: the CLI's command, replacing this shell (exit codes: 0 ok, 1 refused, 2 usage, 3 unreachable)
run_cli() {
  cli_build
  export ALLOT_SERVER="${ALLOT_SERVER:-${ALLOT_BUDGET_URL:-http://127.0.0.1:$BUDGET_PORT}}"
  export ALLOT_HOME
  exec "$JAVA" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m -jar "$CLI_JAR" "$@"
}
