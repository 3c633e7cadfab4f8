# Sourced by the checks that give their processes ports of their own (metrics, Prometheus).
#
# free_ports COUNT prints the first of COUNT consecutive ports that are free now, drawn below the kernel's
# ephemeral range (32768 and up by default). The dev broker's listeners and every outgoing connection take their
# ports from that range, so a port drawn inside it can be taken between the draw and the listen: the chaos check
# once lost its first `run` to "Address already in use" on a port the broker had.
free_ports() {  # count
    python3 - "$1" <<'PY'
import random, socket, sys
count = int(sys.argv[1])
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral = int(f.read().split()[0])
except (OSError, ValueError, IndexError):
    ephemeral = 32768
for _ in range(500):
    base = random.randrange(10000, ephemeral - count)
    held = []
    try:
        for port in range(base, base + count):
            s = socket.socket()
            held.append(s)
            s.bind(("0.0.0.0", port))
    except OSError:
        continue
    finally:
        for s in held:
            s.close()
    print(base)
    break
else:
    sys.exit(f"no {count} consecutive free ports below {ephemeral}")
PY
}
