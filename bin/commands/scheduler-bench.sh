# summary: measure the scheduler-service loop on the in-JVM broker: submit->StartJob latency, burst throughput, replay
# usage: bin/allot scheduler-bench [-Dbench.nodes=N] [-Dbench.latency.jobs=N] [-Dbench.burst.jobs=N] | bin/allot scheduler-bench -Dtest=RestartBenchmark [-Dbench.restart.jobs=N] [-Dbench.restart.running=N]
# help: Measures the scheduler-service loop on an in-JVM broker: submit -> StartJob latency, burst throughput, restart. Not part of the tests.
# help: -Dtest=RestartBenchmark: the rebuild from the topics after 100,000 jobs of history with 5,000 running.
# shellcheck shell=bash
use_jdk
cd "$ALLOT_ROOT"
info "scheduler-service loop benchmark (extra -D options: bench.nodes, bench.latency.jobs, bench.burst.jobs)"
./mvnw -B -ntp -o -pl scheduler-service -am test -Dtest=LoopBenchmark -Dsurefire.failIfNoSpecifiedTests=false \
  -Dbench.burst.jobs="${BENCH_BURST_JOBS:-10000}" "$@" | grep -E 'BENCH|Tests run:|ERROR'
