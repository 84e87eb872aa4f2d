#!/usr/bin/env bash
# make-base.sh IMAGE: makes a local stand-in for the Temurin 21 JRE base image (eclipse-temurin:21-jre)
# where none can be pulled: a minimal Debian trixie rootfs from debootstrap with OpenJDK 21's headless
# JRE, laid out as the Temurin image is (JAVA_HOME=/opt/java/openjdk, java on the PATH), imported with
# 'docker import' under IMAGE. Needs root, debootstrap and a reachable Debian mirror; the rootfs tarball
# is kept in $ALLOT_HOME/images/ so a second run only imports it.
set -euo pipefail
IMAGE=${1:?usage: make-base.sh IMAGE}
WORK=${ALLOT_HOME:?}/images/base
MIRROR=${ALLOT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$WORK"
if [ ! -s "$WORK/rootfs.tar" ]; then
  command -v debootstrap >/dev/null || { echo "make-base: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
  [ "$(id -u)" = 0 ] || { echo "make-base: debootstrap needs root" >&2; exit 1; }
  rm -rf "$WORK/rootfs"
  echo "make-base: debootstrap trixie (minbase + openjdk-21-jre-headless) into $WORK/rootfs" >&2
  debootstrap --variant=minbase --include=openjdk-21-jre-headless,ca-certificates,curl,procps \
    trixie "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { echo "make-base: debootstrap failed; see $WORK/debootstrap.log" >&2; exit 1; }
  mkdir -p "$WORK/rootfs/opt/java"
  ln -sfn /usr/lib/jvm/java-21-openjdk-amd64 "$WORK/rootfs/opt/java/openjdk"
  # What an image does not need: package caches, docs, man pages.
  chroot "$WORK/rootfs" apt-get clean
  rm -rf "$WORK/rootfs"/var/lib/apt/lists/* "$WORK/rootfs"/usr/share/doc/* "$WORK/rootfs"/usr/share/man/*
  tar -C "$WORK/rootfs" -cf "$WORK/rootfs.tar" .
  rm -rf "$WORK/rootfs"
fi
docker import \
  --change 'ENV JAVA_HOME=/opt/java/openjdk' \
  --change 'ENV PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["jshell"]' \
  --message "local stand-in for $IMAGE: Debian trixie + OpenJDK 21 JRE (debootstrap)" \
  "$WORK/rootfs.tar" "$IMAGE" >/dev/null
echo "make-base: $IMAGE imported ($(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))" >&2
