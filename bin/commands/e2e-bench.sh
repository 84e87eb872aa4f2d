# summary: measure JobSubmitted -> process running on an idle cluster through the whole system (p50/p99)
# usage: bin/allot e2e-bench [MAVEN_OPTIONS...]
# help: Builds the services, starts the whole system on an in-JVM broker and measures JobSubmitted -> JobStarted
# help: (process running) for 200 jobs on an idle 4 x 8-GPU cluster; prints p50/p90/p99. Not part of the tests.
# shellcheck shell=bash
use_jdk
cd "$ALLOT_ROOT"
# -am builds the siblings from the reactor (nothing is installed into the Maven repository).
mvnw -pl budget-service,accounting-service,scheduler-service,node-agent -am package -DskipTests || die "build failed"
./mvnw -B -ntp -q -pl e2e-tests -am verify -Dtest=EndToEndLatencyBenchmark -Dsurefire.failIfNoSpecifiedTests=false "$@" 2>&1 \
  | grep -E 'BENCH|Tests run:|ERROR|FAIL'
