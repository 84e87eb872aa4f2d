# summary: build everything and run every test (what CI runs)
# shellcheck shell=bash
use_jdk
info "testing with JDK $("$JAVA" -version 2>&1 | head -1) at $JAVA_HOME"
cd "$ALLOT_ROOT"
exec ./mvnw -B -ntp verify "$@"
