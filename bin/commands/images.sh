# summary: build the container images: the four services, the Kafka broker and the schema registry
# usage: bin/allot images [build|list]
# help: build (default): the services' jars (tests skipped), then allot/<service>:0.1.0 (images/service/Dockerfile,
# help: Quarkus fast-jar on a Temurin 21 JRE), allot/kafka:4.1.2 and allot/apicurio-registry:3.3.3 from their Maven
# help: Central distributions. The base image eclipse-temurin:21-jre is pulled, or, where nothing can be pulled,
# help: made locally (Debian + OpenJDK 21 JRE with debootstrap, 'docker import'ed under that name; needs root).
# help: Needs a Docker engine; says so and builds nothing when none answers. ALLOT_IMAGE_TAG, ALLOT_IMAGE_BASE override.
# help: list: the image names and whether each exists.
# shellcheck shell=bash
# shellcheck source=bin/images-lib.sh
source "$ALLOT_ROOT/bin/images-lib.sh"
case "${1:-build}" in
  build)
    images_build
    for image in $(images_list); do
      printf '%s %s\n' "$image" "$(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')"
    done ;;
  list)
    docker_check
    for image in $(images_list); do
      if docker image inspect "$image" >/dev/null 2>&1; then printf '%s present\n' "$image"; else printf '%s missing\n' "$image"; fi
    done ;;
  *) die "usage: bin/allot images [build|list]" ;;
esac
