# summary: what-if on the recorded log: replay the last days with the tree as it was and with proposed shares, per team before → after
# usage: bin/allot whatif [--days 7] [--set ACCOUNT=SHARE ...] [--budgets FILE] [--policy P] [--cluster C] [-o table|json] [--out DIR] [--bootstrap H:P] [--registry URL] [--kafka-config FILE]
# help: Reads job-requests, job-events, budgets and node-status from Kafka, builds a trace of the last --days (default 7)
# help: up to --until (default now) and replays it through the simulator twice: the budget tree as recorded (policy
# help: budget, the scheduler's), and the tree with the proposed shares (--set lab/vision=2, repeatable, and/or
# help: --budgets FILE, YAML or JSON {lab/vision: 2}) under --policy (budget|priority|quota|fairshare-decay).
# help: Prints per team share, owed, delivered and useful GPU-hours, wait p50/p90 by class, preemptions and completed
# help: jobs as "before → after" (-o json for JSON); writes report.html (the simulate report), summary.json,
# help: details.json, whatif.json and trace.csv to --out (default .allot/whatif). How durations are taken from the log:
# help: simulator/README.md "What-if". Defaults: --bootstrap 127.0.0.1:$ALLOT_KAFKA_PORT, --registry the local one;
# help: --kafka-config FILE (or ALLOT_KAFKA_CONFIG): Kafka client properties (SASL/TLS). Exit 2: bad usage; 3: broker or registry unreachable.
# shellcheck shell=bash
use_jdk
SIM_JAR="$ALLOT_ROOT/simulator/target/allot-simulator.jar"
if older_than_sources "$SIM_JAR" simulator; then
  info "building the simulator"
  # -am: a fresh clone has none of its sibling modules (schemas, kafka-edge, scheduler-core) installed.
  mvnw -o -pl simulator -am package -DskipTests || mvnw -pl simulator -am package -DskipTests || die "simulator build failed"
fi
whatif_args=(--bootstrap "${ALLOT_BOOTSTRAP:-127.0.0.1:$KAFKA_PORT}" --registry "${ALLOT_REGISTRY_URL:-http://127.0.0.1:$REGISTRY_PORT}")
case " $* " in *" --out "*|*" --out="*) ;; *) whatif_args+=(--out "$ALLOT_HOME/whatif") ;; esac
# a secured broker's client properties: the environment's, else the local broker's read-only analyst when it has
# one (an explicit --kafka-config comes later and wins)
if [ -z "${ALLOT_KAFKA_CONFIG:-}" ] && [ "$KAFKA_SECURITY" != plaintext ] && [ -f "$KAFKA_CREDENTIALS_DIR/analyst.properties" ]; then
  ALLOT_KAFKA_CONFIG="$KAFKA_CREDENTIALS_DIR/analyst.properties"
fi
if [ -n "${ALLOT_KAFKA_CONFIG:-}" ]; then whatif_args+=(--kafka-config "$ALLOT_KAFKA_CONFIG"); fi
if [ -z "${COLUMNS:-}" ] && [ -t 1 ]; then COLUMNS=$(tput cols 2>/dev/null || echo 120); fi
export COLUMNS="${COLUMNS:-120}"
exec "$JAVA" -Xmx${ALLOT_WHATIF_HEAP:-2g} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.log.org.apache.kafka=error \
  -cp "$SIM_JAR" dev.allot.simulator.whatif.WhatIfCommand "${whatif_args[@]}" "$@"
