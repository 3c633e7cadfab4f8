"""What deploy/kubernetes/ must keep beyond its schema, from docs/operating.md (the operations guide): the pod
name is the instance id (static membership), the state directory is on the StatefulSet's volume,
readiness is /ready and liveness /health, the grace period outlasts --shutdown-timeout, a
PodDisruptionBudget covers the pods, and the client properties come from a Secret.

Usage: python3 .ci/kubernetes_invariants.py deploy/kubernetes/*.yaml
"""
import re
import sys

import yaml


def seconds(duration):
    match = re.fullmatch(r"(\d+)(ms|s|m|h)", duration)
    if not match:
        raise ValueError(f"not a duration: {duration}")
    value, unit = int(match[1]), match[2]
    return value * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]


def main(paths):
    resources = [doc for path in paths for doc in yaml.safe_load_all(open(path)) if doc]
    kinds = {}
    for resource in resources:
        kinds.setdefault(resource["kind"], []).append(resource)
    problems = []

    def need(condition, message):
        if not condition:
            problems.append(message)

    need(len(kinds.get("StatefulSet", [])) == 1, "one StatefulSet for `run`")
    if problems:
        return problems
    stateful = kinds["StatefulSet"][0]
    pod = stateful["spec"]["template"]["spec"]
    container = next(c for c in pod["containers"] if c["name"] == "tripstream")
    env = {e["name"]: e for e in container.get("env", [])}

    instance = env.get("TRIPSTREAM_INSTANCE_ID", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    need(instance == "metadata.name", "TRIPSTREAM_INSTANCE_ID comes from the pod name (downward API)")

    state_dir = env.get("TRIPSTREAM_STATE_DIR", {}).get("value")
    claims = {t["metadata"]["name"] for t in stateful["spec"].get("volumeClaimTemplates", [])}
    mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
    need(state_dir is not None and mounts.get(state_dir) in claims,
         f"--state-dir ({state_dir}) is mounted from a volumeClaimTemplate")

    need(container.get("readinessProbe", {}).get("httpGet", {}).get("path") == "/ready", "readiness probe on /ready")
    need(container.get("livenessProbe", {}).get("httpGet", {}).get("path") == "/health", "liveness probe on /health")

    shutdown = seconds(env.get("TRIPSTREAM_SHUTDOWN_TIMEOUT", {}).get("value", "30s"))
    grace = pod.get("terminationGracePeriodSeconds", 30)
    need(grace > shutdown, f"terminationGracePeriodSeconds ({grace}) above --shutdown-timeout ({shutdown:g} s)")

    labels = stateful["spec"]["template"]["metadata"]["labels"]
    budgets = [b for b in kinds.get("PodDisruptionBudget", [])
               if all(labels.get(k) == v for k, v in b["spec"]["selector"].get("matchLabels", {}).items())]
    need(budgets, "a PodDisruptionBudget selecting the StatefulSet's pods")

    config = env.get("TRIPSTREAM_KAFKA_CONFIG", {}).get("value", "")
    secret_volumes = {v["name"] for v in pod.get("volumes", []) if "secret" in v}
    need(any(config.startswith(path.rstrip("/") + "/") and name in secret_volumes for path, name in mounts.items()),
         "--kafka-config is a file of a mounted Secret")

    limits = container.get("resources", {}).get("limits", {})
    threads = env.get("TRIPSTREAM_THREADS", {}).get("value")
    need(threads is not None and "cpu" in limits and float(threads) == float(limits["cpu"]),
         "TRIPSTREAM_THREADS equals the CPU limit (the default counts the node's cores)")

    services = [s for s in kinds.get("Service", []) if s["spec"].get("clusterIP") == "None"]
    need(any(s["metadata"]["name"] == stateful["spec"]["serviceName"] for s in services),
         "a headless Service named as the StatefulSet's serviceName")
    return problems


if __name__ == "__main__":
    found = main(sys.argv[1:])
    for problem in found:
        print(f"deploy/kubernetes: missing: {problem}", file=sys.stderr)
    sys.exit(1 if found else 0)
