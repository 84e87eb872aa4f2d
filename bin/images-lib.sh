# Container images and the Docker engine: functions behind 'bin/allot images' and 'bin/allot compose'
# (sourced). Images: allot/<service>:$IMAGE_TAG for the four services, allot/kafka:$KAFKA_VERSION and
# allot/apicurio-registry:$REGISTRY_VERSION, all on $IMAGE_BASE (see images/README.md).
# shellcheck shell=bash

IMAGE_TAG="${ALLOT_IMAGE_TAG:-0.1.0}"
IMAGE_BASE="${ALLOT_IMAGE_BASE:-eclipse-temurin:21-jre}"
IMAGE_SERVICES="budget-service scheduler-service accounting-service node-agent"
IMAGES_DIR="$ALLOT_HOME/images"

# docker_check: dies, saying why, unless a Docker engine answers.
docker_check() {
  command -v docker >/dev/null 2>&1 || die "no docker command on this machine: install Docker (Debian: apt-get install docker.io) to build or run images"
  local err
  if ! err=$(docker info 2>&1 >/dev/null); then
    die "no Docker engine answers ($(echo "$err" | tail -1)); start one (e.g. 'dockerd &' as root) and retry. Nothing was built or started."
  fi
  # The legacy builder where the buildx plugin is missing (Debian's docker.io has none).
  docker buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0
}

# images_base: the base image, pulled where a registry answers, else made locally (images/base/make-base.sh).
images_base() {
  if docker image inspect "$IMAGE_BASE" >/dev/null 2>&1; then return 0; fi
  if [ "${ALLOT_IMAGES_PULL:-1}" = 1 ] && timeout 60 docker pull -q "$IMAGE_BASE" >/dev/null 2>&1; then
    info "pulled $IMAGE_BASE"; return 0
  fi
  info "$IMAGE_BASE cannot be pulled here: making a local stand-in (Debian + OpenJDK 21 JRE, debootstrap)"
  ALLOT_HOME="$ALLOT_HOME" "$ALLOT_ROOT/images/base/make-base.sh" "$IMAGE_BASE" || die "could not make the base image"
}

# images_docker_build NAME TAG DOCKERFILE CONTEXT
images_docker_build() {
  local name=$1 tag=$2 file=$3 context=$4 log="$IMAGES_DIR/${1//\//_}.build.log"
  info "building $name:$tag"
  docker build --network host --build-arg BASE="$IMAGE_BASE" -f "$file" -t "$name:$tag" "$context" >"$log" 2>&1 \
    || die "docker build of $name failed; see $log"
}

images_build() {
  local only=${1:-all} m ctx
  use_jdk
  docker_check
  mkdir -p "$IMAGES_DIR"
  images_base
  if images_jars_stale; then
    info "building the services' jars and the broker's classpath (tests skipped)"
    mvnw -pl "$(echo "$IMAGE_SERVICES" | tr ' ' ','),test-support" -am package -DskipTests -Pimages \
      || die "build failed"
  fi
  for m in $IMAGE_SERVICES; do
    images_docker_build "allot/$m" "$IMAGE_TAG" "$ALLOT_ROOT/images/service/Dockerfile" "$ALLOT_ROOT/$m/target/quarkus-app"
  done
  ctx="$IMAGES_DIR/kafka-context"
  rm -rf "$ctx"; mkdir -p "$ctx/lib"
  cp "$ALLOT_ROOT"/test-support/target/kafka-image-lib/*.jar "$ctx/lib/"
  cp "$ALLOT_ROOT"/schemas/target/allot-schemas-*.jar "$ALLOT_ROOT"/kafka-edge/target/allot-kafka-edge-*.jar \
    "$ALLOT_ROOT"/test-support/target/allot-test-support-*.jar "$ctx/lib/"
  cp "$ALLOT_ROOT/images/kafka/entrypoint.sh" "$ctx/"
  images_docker_build allot/kafka "$KAFKA_VERSION" "$ALLOT_ROOT/images/kafka/Dockerfile" "$ctx"
  ctx="$ALLOT_HOME/dist/apicurio-registry-$REGISTRY_VERSION"
  [ -f "$ctx/quarkus-run.jar" ] || die "the registry distribution is missing at $ctx (test-support's build unpacks it)"
  images_docker_build allot/apicurio-registry "$REGISTRY_VERSION" "$ALLOT_ROOT/images/registry/Dockerfile" "$ctx"

}

# images_jars_stale: whether a jar the images take is missing or older than a source file.
images_jars_stale() {
  local m jar
  [ -n "$(ls "$ALLOT_ROOT"/test-support/target/kafka-image-lib/*.jar 2>/dev/null)" ] || return 0
  [ -n "$(ls "$ALLOT_ROOT"/schemas/target/allot-schemas-*.jar 2>/dev/null)" ] || return 0
  for m in $IMAGE_SERVICES; do
    jar="$ALLOT_ROOT/$m/target/quarkus-app/quarkus-run.jar"
    ! older_than_sources "$jar" "$m" || return 0
  done
  return 1
}

images_list() {
  local m
  for m in $IMAGE_SERVICES; do printf '%s\n' "allot/$m:$IMAGE_TAG"; done
  printf "%s\n" "allot/kafka:$KAFKA_VERSION" "allot/apicurio-registry:$REGISTRY_VERSION"
}

images_present() {
  local image missing=""
  for image in $(images_list); do
    docker image inspect "$image" >/dev/null 2>&1 || missing="$missing $image"
  done
  [ -z "$missing" ] || { info "missing images:$missing"; return 1; }
}
