# summary: replay a job trace through scheduler-core and compare policies (see simulator/README.md)
# usage: bin/allot simulate --trace DIR --format philly-gavel|csv | --synthetic N  [options]
# help: Replays a job trace through scheduler-core on a virtual clock and compares policies; writes summary.json,
# help: details.json and report.html to --out. Every option: simulator/README.md, or
# help: java -jar simulator/target/allot-simulator.jar --help once the simulator is built.
# shellcheck shell=bash
use_jdk
SIM_JAR="$ALLOT_ROOT/simulator/target/allot-simulator.jar"
if older_than_sources "$SIM_JAR" simulator; then
  info "building the simulator"
  mvnw -pl simulator -am package -DskipTests || die "simulator build failed"
fi
exec "$JAVA" -XX:+UseParallelGC -Xmx8g -jar "$SIM_JAR" "$@"
