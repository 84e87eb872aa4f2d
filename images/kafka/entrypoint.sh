#!/bin/sh
# broker: writes server.properties from the KAFKA_* environment (KAFKA_FOO_BAR=x -> foo.bar=x, as the
# apache/kafka image does; KAFKA_HEAP_OPTS and KAFKA_CLUSTER_ID are not properties), formats the log
# directory on first start (cluster id from KAFKA_CLUSTER_ID or a new one) and runs the broker.
# create-topics BOOTSTRAP: creates Allot's catalogue topics (dev.allot.schemas.catalogue.TopicCreator).
set -eu
CP="/opt/kafka/lib/*"
JBOSS_LOG="-Djava.util.logging.manager=org.jboss.logmanager.LogManager"
case "${1:-broker}" in
  broker)
    props=/tmp/server.properties
    env | grep '^KAFKA_' | grep -v -e '^KAFKA_HEAP_OPTS=' -e '^KAFKA_CLUSTER_ID=' | while IFS='=' read -r name value; do
      key=$(echo "${name#KAFKA_}" | tr 'A-Z_' 'a-z.')
      echo "$key=$value"
    done > "$props"
    logdir=$(sed -n 's/^log\.dirs=//p' "$props")
    if [ ! -f "$logdir/meta.properties" ]; then
      id=${KAFKA_CLUSTER_ID:-$(java $JBOSS_LOG -cp "$CP" kafka.tools.StorageTool random-uuid)}
      java $JBOSS_LOG -cp "$CP" kafka.tools.StorageTool format -t "$id" -c "$props" --standalone 2>/dev/null \
        || java $JBOSS_LOG -cp "$CP" kafka.tools.StorageTool format -t "$id" -c "$props"
    fi
    # shellcheck disable=SC2086
    exec java $JBOSS_LOG $KAFKA_HEAP_OPTS -XX:+UseG1GC -cp "$CP" kafka.Kafka "$props" ;;
  create-topics)
    exec java $JBOSS_LOG -cp "$CP" dev.allot.schemas.catalogue.TopicCreator "${2:?create-topics BOOTSTRAP}" ;;
  *) exec "$@" ;;
esac
