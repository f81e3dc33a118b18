#!/usr/bin/env bash
# The cluster build of two revisions, alternately in one run: Benchmarks/cluster_build_ab.sh BEFORE AFTER [N]
# [PAIRS] [ROUNDS]. Each revision's Sources/GeoIndex is compiled with cluster_build_ab.swift (swiftc -O -wmo, no
# package build), then BEFORE and AFTER run PAIRS times in turn, each building a ClusterIndex over N points
# ROUNDS times; every line gives each build's wall and CPU milliseconds, the load average, and a hash of the
# index's levels, which must be the same for both. Run from the repository.
set -euo pipefail
before=$1 after=$2 count=${3:-100000} pairs=${4:-3} rounds=${5:-5}
root=$(git rev-parse --show-toplevel)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for revision in "$before" "$after"; do
  mkdir -p "$scratch/$revision"
  git -C "$root" archive "$revision" Sources/GeoIndex | tar -x -C "$scratch/$revision"
  cp "$root/Benchmarks/cluster_build_ab.swift" "$scratch/$revision/main.swift"  # top-level code needs the name
  swiftc -O -wmo -module-name GeoIndex "$scratch/$revision"/Sources/GeoIndex/*.swift "$scratch/$revision/main.swift" \
    -o "$scratch/$revision/bench"
done
for _ in $(seq "$pairs"); do
  for revision in "$before" "$after"; do
    echo "$revision n=$count load $(cut -d' ' -f1-3 /proc/loadavg): $("$scratch/$revision/bench" "$count" "$rounds")"
  done
done
