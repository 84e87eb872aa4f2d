# summary: schemas release — write the next released version of every changed topic schema
# usage: bin/allot schemas release
# help: Writes the next released version of every topic schema that changed (refuses a change that is not BACKWARD-compatible).
# shellcheck shell=bash
use_jdk
case "${1:-}" in
  release)
    # clean: avro-maven-plugin does not regenerate classes of an .avsc that changed since the last build
    mvnw -pl schemas clean package -DskipTests || die "schemas build failed"
    mvnw -pl schemas dependency:build-classpath -Dmdep.outputFile="$ALLOT_HOME/schemas.classpath" >/dev/null \
      || die "could not resolve the schemas classpath"
    "$JAVA" -cp "$ALLOT_ROOT/schemas/target/classes:$(cat "$ALLOT_HOME/schemas.classpath")" \
      dev.allot.schemas.evolution.SchemaRelease "$ALLOT_ROOT/schemas/src/main/resources/released" ;;
  *) die "usage: bin/allot schemas release" ;;
esac
