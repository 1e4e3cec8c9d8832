#!/usr/bin/env bash
# A local, single-node Weaviate server for as2's weaviate index kind
# (index/weaviate) and its integration test (issue 12).
#
#   scripts/weaviate.sh install   build weaviate-server into $WEAVIATE_BIN's folder
#   scripts/weaviate.sh start     start it on 127.0.0.1:$WEAVIATE_PORT, wait until ready
#   scripts/weaviate.sh stop      stop the server start started
#   scripts/weaviate.sh status    say whether it is ready, and its memory and disk
#
# Then: AS2_WEAVIATE_URL=http://127.0.0.1:8079 go test ./index/weaviate -run Integration
#
# Anonymous access, no vectorizer module (as2 sends its own vectors), data
# in $WEAVIATE_DIR/data (a temporary folder: delete it to start empty).
set -euo pipefail
bin=${WEAVIATE_BIN:-/tmp/wv/bin/weaviate-server}
port=${WEAVIATE_PORT:-8079}
dir=${WEAVIATE_DIR:-${TMPDIR:-/tmp}/as2-weaviate}
url=http://127.0.0.1:$port
pidfile=$dir/weaviate.pid

ready() { curl -fsS -o /dev/null --max-time 2 "$url/v1/.well-known/ready" 2>/dev/null; }

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case ${1:-} in
install)
  # Builds from source with the Go toolchain (minutes, mostly once: the
  # build cache keeps progress); nice, to leave the cores to other work.
  GOBIN=$(dirname "$bin") nice -n 19 go install github.com/weaviate/weaviate/cmd/weaviate-server@latest
  ;;
start)
  if running; then
    echo "weaviate already running (pid $(cat "$pidfile")) at $url"
    exit 0
  fi
  if [ ! -x "$bin" ]; then
    echo "weaviate.sh: no server binary at $bin (run scripts/weaviate.sh install, or set WEAVIATE_BIN)" >&2
    exit 1
  fi
  mkdir -p "$dir/data"
  # Weaviate's other listeners (gRPC, gossip, Raft) keep their default
  # ports but gRPC's, which as2 does not use ($WEAVIATE_GRPC_PORT, 50079
  # unless set), and bind to loopback too: the cluster's own address is
  # otherwise the host's, which breaks Raft on an IPv6-only interface
  # ("too many colons in address").
  AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
    PERSISTENCE_DATA_PATH=$dir/data \
    DEFAULT_VECTORIZER_MODULE=none \
    ENABLE_MODULES= \
    CLUSTER_HOSTNAME=node1 \
    CLUSTER_BIND_ADDR=127.0.0.1 CLUSTER_ADVERTISE_ADDR=127.0.0.1 \
    DISABLE_TELEMETRY=true \
    GRPC_PORT=${WEAVIATE_GRPC_PORT:-50079} \
    nohup nice -n 10 "$bin" --host 127.0.0.1 --port "$port" --scheme http >"$dir/weaviate.log" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 120); do
    if ready; then
      echo "weaviate ready at $url (pid $(cat "$pidfile"), data $dir/data, log $dir/weaviate.log)"
      exit 0
    fi
    if ! running; then
      echo "weaviate.sh: the server exited; the end of $dir/weaviate.log:" >&2
      tail -20 "$dir/weaviate.log" >&2
      exit 1
    fi
    sleep 1
  done
  echo "weaviate.sh: not ready after 120 s; see $dir/weaviate.log" >&2
  exit 1
  ;;
stop)
  if ! running; then
    echo "weaviate not running"
    rm -f "$pidfile"
    exit 0
  fi
  pid=$(cat "$pidfile")
  kill "$pid"
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  rm -f "$pidfile"
  echo "weaviate stopped"
  ;;
status)
  if ! ready; then echo "weaviate not ready at $url"; exit 1; fi
  # The server's memory and disk, for as2 bench index (which measures
  # only its own process).
  if running; then
    pid=$(cat "$pidfile")
    rss=$(awk '/^VmRSS/ {printf "%.0f MiB", $2/1024}' "/proc/$pid/status")
    hwm=$(awk '/^VmHWM/ {printf "%.0f MiB", $2/1024}' "/proc/$pid/status")
    echo "weaviate ready at $url (pid $pid, resident $rss, peak $hwm, data $(du -sh "$dir/data" | cut -f1))"
  else
    echo "weaviate ready at $url (not started by this script)"
  fi
  ;;
*)
  echo "usage: $0 install|start|stop|status" >&2
  exit 2
  ;;
esac
