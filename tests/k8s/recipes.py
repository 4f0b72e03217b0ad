"""The cluster recipes of scripts/k8s/ as the tests read them: each file's documents, admission-job.yaml
rendered as admission-test.sh renders it (its defaults), and the pod templates of each workload."""
import os
import re

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
K8S = os.path.join(ROOT, "scripts", "k8s")
ADMISSION_DEFAULTS = {"__NAME__": "placebench-admission", "__NAMESPACE__": "default", "__WORKERS__": "4",
                      "__GPUS__": "2", "__IMAGE__": "registry.example.com/placebench:latest",
                      "__FAIL_READY_INDEX__": "-1"}


def render_admission_job():
    """scripts/k8s/admission-job.yaml with every __PLACEHOLDER__ that admission-test.sh fills, filled."""
    with open(os.path.join(K8S, "admission-test.sh"), encoding="utf-8") as f:
        filled = set(re.findall(r"s\|(__[A-Z_]+__)\|", f.read()))
    assert filled == set(ADMISSION_DEFAULTS), f"admission-test.sh fills {sorted(filled)}"
    with open(os.path.join(K8S, "admission-job.yaml"), encoding="utf-8") as f:
        text = f.read()
    for k, v in ADMISSION_DEFAULTS.items():
        text = text.replace(k, v)
    assert "__" not in re.sub(r"#.*", "", text), "a placeholder admission-test.sh does not fill"
    return text


def recipe_text(name):
    if name == "admission-job.yaml":
        return render_admission_job()
    with open(os.path.join(K8S, name), encoding="utf-8") as f:
        return f.read()


def recipe_documents(name):
    return [d for d in yaml.safe_load_all(recipe_text(name)) if d]


def pod_templates(doc):
    """{role: pod template} of a workload: a Pod itself, each Volcano task, each MPIJob replica spec."""
    kind, spec = doc.get("kind"), doc.get("spec", {})
    if kind == "Pod":
        return {doc["metadata"]["name"]: {"metadata": doc["metadata"], "spec": spec}}
    if kind == "Job" and doc["apiVersion"].startswith("batch.volcano.sh/"):
        return {t["name"]: t["template"] for t in spec["tasks"]}
    if kind == "MPIJob":
        return {role: r["template"] for role, r in spec["mpiReplicaSpecs"].items()}
    return {}
