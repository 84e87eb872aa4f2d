# summary: measure JobSubmitted -> process running on an idle cluster through the whole system (p50/p99)
# shellcheck shell=bash
use_jdk
cd "$ALLOT_ROOT"
mvnw -pl schemas,test-support,scheduler-core install -DskipTests || die "build failed"
mvnw -pl budget-service,accounting-service,scheduler-service,node-agent package -DskipTests || die "build failed"
./mvnw -B -ntp -q -pl e2e-tests test -Dtest=EndToEndLatencyBenchmark -Dsurefire.failIfNoSpecifiedTests=false "$@" 2>&1 \
  | grep -E 'BENCH|Tests run:|ERROR|FAIL'
