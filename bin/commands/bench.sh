# summary: [--nodes 1024] [--jobs 20000] [--executor processes|fake] — scale benchmark: two clusters of fake 8-GPU nodes through the whole system
# usage: bin/allot bench [--nodes 1024] [--jobs 20000] [--idle 100] [--rest-jobs 1000] [--budget-services 1] [--accounting-services 1] [--executor processes|fake] [--fake-run-millis 0] [--rate R --seconds 60] [MAVEN_OPTIONS...]
# help: Builds the services and starts, on an in-JVM broker: one budget- and one accounting-service, and two clusters,
# help: each with its scheduler and one node agent process hosting NODES/2 fake 8-GPU nodes. Then IDLE jobs one after
# help: another through POST /jobs (round trip, submit -> StartJob, submit -> process running), and JOBS 1-GPU jobs
# help: straight onto job-requests (jobs placed and started per second end to end, latencies); each component's CPU
# help: seconds and peak RSS, the in-JVM broker's, and the CPU of the jobs' own processes (supervisor, setpriv,
# help: loader, command: on one small machine hosting every node, the bound of end-to-end throughput). A progress
# help: line every 10 s of the sustained phase. Prints BENCH lines (figures for docs/benchmarks.md). Not part of the
# help: tests. -Dallot.e2e.jvm-options="..." adds JVM options to every service (a flight recording, say);
# help: -Dbench.timeout.minutes bounds the sustained phase (default: max(10, JOBS/1000)).
# help: Then every accounting-service is asked each cluster's usage (all must agree), and REST_JOBS jobs go through
# help: POST /jobs from 8 clients (accepted/s, round trips), to a cluster of their own that no scheduler serves (the
# help: acceptance alone, not the jobs' processes). Scale-out: --budget-services N spreads the REST calls over
# help: N budget-services; --accounting-services N runs N instances of the Streams application (rebalance time,
# help: interactive queries answered by each).
# help: --executor fake measures the control plane alone: no node agent processes; a fake executor in the benchmark's
# help: JVM speaks the agents' protocol (registers the nodes, heartbeats, reports JobStarted, a usage tile and
# help: JobExited for every StartJob, FAKE_RUN_MILLIS after it) and starts no process, as Armada's fake executor and
# help: Kubernetes' kwok do; then how long after its last exit the accounting-service holds every GPU-second it
# help: reported and the budget-service's view has every job COMPLETED (the rest of the system caught up), and the
# help: benchmark JVM's CPU by thread group (broker, fake executor, clients). The default (processes) runs every
# help: replica's real process.
# help: --rate R paces the sustained phase: R jobs a second for SECONDS (instead of a burst of JOBS), then
# help: submit -> StartJob p50/p99 for each 10 s of submissions (a system that keeps up holds them flat).
# shellcheck shell=bash
use_jdk
cd "$ALLOT_ROOT"
props=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) props+=("-Dbench.nodes=${2:?--nodes needs a number}"); shift 2 ;;
    --jobs) props+=("-Dbench.jobs=${2:?--jobs needs a number}"); shift 2 ;;
    --idle) props+=("-Dbench.idle=${2:?--idle needs a number}"); shift 2 ;;
    --rest-jobs) props+=("-Dbench.rest-jobs=${2:?--rest-jobs needs a number}"); shift 2 ;;
    --budget-services) props+=("-Dbench.budget-services=${2:?--budget-services needs a number}"); shift 2 ;;
    --accounting-services) props+=("-Dbench.accounting-services=${2:?--accounting-services needs a number}"); shift 2 ;;
    --executor)
      case "${2:-}" in processes|fake) ;; *) die "--executor is processes or fake, not '${2:-}'" ;; esac
      props+=("-Dbench.executor=$2"); shift 2 ;;
    --rate) props+=("-Dbench.rate=${2:?--rate needs a number}"); shift 2 ;;
    --seconds) props+=("-Dbench.seconds=${2:?--seconds needs a number}"); shift 2 ;;
    --fake-run-millis) props+=("-Dbench.fake-run-millis=${2:?--fake-run-millis needs a number}"); shift 2 ;;
    *) props+=("$1"); shift ;;
  esac
done
# -am builds the siblings from the reactor (nothing is installed into the Maven repository).
mvnw -pl budget-service,accounting-service,scheduler-service,node-agent -am package -DskipTests || die "build failed"
./mvnw -B -ntp -q -pl e2e-tests -am verify -Dtest=ScaleBenchmark -Dsurefire.failIfNoSpecifiedTests=false "${props[@]}" 2>&1 \
  | grep --line-buffered -E 'BENCH|Tests run:|ERROR|FAIL'
