# summary: up|down|status|smoke — the whole system in Docker containers on this machine
# usage: bin/allot compose up|down|status|smoke
# help: up: builds the images if missing ('bin/allot images'), then runs compose/docker-compose.local.yml: broker, registry,
# help: the four services with two node agents (one fake 8-GPU node each) and Prometheus, host networking on 127.0.0.1,
# help: ports 19092/19093, 18080-18085 (API 18081), 19090 (ALLOT_COMPOSE_*_PORT). Grafana is left out here (not packaged).
# help: down: stops and removes the containers. status: one line per component.
# help: smoke: up, then submits a job through the API and sees it complete, submits another, kills the node agent container
# help: running it and sees the job requeue and start on the other node; then runs the Testcontainers integration test
# help: (TestcontainersInfraTest, -Dallot.infra=testcontainers). Needs a Docker engine: says so and does nothing without one.
# shellcheck shell=bash
# shellcheck source=bin/compose-lib.sh
source "$ALLOT_ROOT/bin/compose-lib.sh"
case "${1:-}" in
  up) compose_up ;;
  down) compose_down ;;
  status) docker_check; compose_status ;;
  smoke)
    use_jdk
    compose_smoke
    compose_testcontainers_smoke ;;
  *) die "usage: bin/allot compose up|down|status|smoke" ;;
esac
