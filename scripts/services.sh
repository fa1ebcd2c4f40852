#!/usr/bin/env bash
# Make sure the services the tests talk to answer on loopback: Redis (started here if none answers)
# and PostgreSQL (reported; its tests skip locally and fail under CI when it is absent).
set -uo pipefail
if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  if ! command -v redis-server >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq redis-server) >/dev/null 2>&1 || true
  fi
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /tmp --logfile /tmp/label-audit-redis.log || true
  for _ in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && break; sleep 0.1; done
fi
(exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && echo "redis: up" || echo "redis: DOWN"
(exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null && echo "postgresql: up" || echo "postgresql: down"
