# summary: [--principal NAME] — a Kafka client properties file for the local broker (read-only analyst by default)
# usage: bin/allot kafka-credentials [--principal NAME]
# help: Prints security.protocol, sasl.mechanism, sasl.jaas.config and bootstrap.servers for one SCRAM principal
# help: of the local broker ('bin/allot infra up' / 'up' makes them, under .allot/kafka/credentials, mode 0600).
# help: The default, 'analyst', may read every topic and write none; the others are the services' own
# help: (budget-service, scheduler-service, node-agent, accounting-service) and 'admin', the broker's super user.
# help: Any Kafka client takes the output, e.g.
# help:   bin/allot kafka-credentials > analyst.properties
# help:   kafka-console-consumer.sh --bootstrap-server 127.0.0.1:9092 --consumer.config analyst.properties --topic budgets --from-beginning
# help: The ACLs of each principal: docs/architecture.md, "Who may write what on Kafka".
# shellcheck shell=bash
principal=analyst
while [ $# -gt 0 ]; do
  case "$1" in
    --principal) principal=${2:?--principal needs a name}; shift 2 ;;
    --principal=*) principal=${1#--principal=}; shift ;;
    *) die "usage: bin/allot kafka-credentials [--principal NAME]" ;;
  esac
done
if [ "$KAFKA_SECURITY" = plaintext ]; then
  info "the local broker runs without authentication (ALLOT_KAFKA_SECURITY=plaintext): no credentials needed"
  printf 'bootstrap.servers=127.0.0.1:%s\nsecurity.protocol=PLAINTEXT\n' "$KAFKA_PORT"
  exit 0
fi
file="$KAFKA_CREDENTIALS_DIR/$principal.properties"
if [ ! -f "$file" ]; then
  [ -d "$KAFKA_CREDENTIALS_DIR" ] || die "no credentials yet in $KAFKA_CREDENTIALS_DIR: start the broker first ('bin/allot infra up')"
  known=$(cd "$KAFKA_CREDENTIALS_DIR" && ls -- *.properties 2>/dev/null | sed 's/\.properties$//' | tr '\n' ' ')
  die "no Kafka principal '$principal'; known: ${known% }"
fi
# bootstrap.servers as the broker listens now (the file keeps the port of its last start)
printf 'bootstrap.servers=127.0.0.1:%s\n' "$KAFKA_PORT"
grep -v '^bootstrap\.servers=' "$file"
