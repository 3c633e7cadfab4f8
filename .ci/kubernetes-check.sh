#!/usr/bin/env bash
# The Kubernetes manifests in deploy/kubernetes/: valid against a pinned Kubernetes version's
# schemas (kubernetes-validate, offline, strict: no unknown fields), and keeping what docs/operating.md's
# operations guide relies on (.ci/kubernetes_invariants.py). No cluster is needed, nor used.
# Usage: .ci/kubernetes-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The version the manifests are written for; kubernetes-validate 1.37 knows 1.25 to 1.37.
kubernetes_version=1.33.0
kubernetes-validate --strict --quiet -k "$kubernetes_version" deploy/kubernetes/*.yaml deploy/kubernetes/examples/*.yaml
python3 .ci/kubernetes_invariants.py deploy/kubernetes/*.yaml
echo "kubernetes-check: the manifests validate against Kubernetes $kubernetes_version" >&2
