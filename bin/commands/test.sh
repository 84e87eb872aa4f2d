# summary: build everything and run every test (what CI runs)
# usage: bin/allot test [MAVEN_OPTIONS...]
# help: Builds every module and runs every test (what CI runs): ./mvnw verify with a JDK 21 or newer.
# shellcheck shell=bash
use_jdk
info "testing with JDK $("$JAVA" -version 2>&1 | head -1) at $JAVA_HOME"
cd "$ALLOT_ROOT"
exec ./mvnw -B -ntp verify "$@"
