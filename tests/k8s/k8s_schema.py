"""Checks Kubernetes objects the way an API server would accept them: each object against the OpenAPI schema
of its apiVersion and kind, for one named Kubernetes version, with unknown fields refused (kubectl's default
--validate=strict).

Schemas:
  - core and built-in API groups (v1 Pod, Event, PersistentVolumeClaim, resource.k8s.io ResourceClaim and
    ResourceSlice, ...): the Kubernetes OpenAPI schemas of KUBERNETES_VERSION shipped by the PyPI package
    kubernetes-validate (scripts/requirements-test.txt), in their "strict" form (additionalProperties: false);
  - custom resources (Volcano, Kubeflow, Kueue, JobSet, LeaderWorkerSet, scheduler-plugins) and the kubelet's
    config file: tests/k8s/schemas/<group>_<version>_<kind>.json, each naming its source in its $comment
    (derived from the project's published CRD by tests/k8s/derive_crd_schema.py, or written from the types).
A `List` (kubectl get -o json of several kinds or of a custom resource) is checked item by item.
"""
import json
import os
import re

import jsonschema
import kubernetes_validate
import yaml
from referencing import Registry, Resource

KUBERNETES_VERSION = "1.35.0"
HERE = os.path.dirname(os.path.abspath(__file__))
CRD_SCHEMAS = os.path.join(HERE, "schemas")
CORE_SCHEMAS = os.path.join(os.path.dirname(kubernetes_validate.__file__), "kubernetes-json-schema",
                            f"v{KUBERNETES_VERSION}-local-strict")
LIST_KEYS = {"apiVersion", "kind", "metadata", "items"}


def _load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


_registry = Resource.from_contents(_load_json(os.path.join(CORE_SCHEMAS, "_definitions.json"))) @ Registry()
_validators = {}


def core_schema_path(api_version, kind):
    """kubernetes-validate's file name: the group's first label and the version (rbac.authorization.k8s.io/v1 ->
    rbac-v1; v1 -> v1)."""
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return os.path.join(CORE_SCHEMAS, f"{kind.lower()}-{group_version}.json")


def crd_schema_path(api_version, kind):
    group, _, version = api_version.rpartition("/")
    return os.path.join(CRD_SCHEMAS, f"{group}_{version}_{kind}.json")


def validator_for(api_version, kind):
    """The validator of apiVersion/kind, or None when no schema is known for it."""
    key = (api_version, kind)
    if key not in _validators:
        schema = None
        for path in (crd_schema_path(api_version, kind), core_schema_path(api_version, kind)):
            if os.path.isfile(path):
                schema = _load_json(path)
                break
        _validators[key] = jsonschema.Draft202012Validator(schema, registry=_registry) if schema else None
    return _validators[key]


def field_path(parts):
    """spec.containers[0].resources.limits, from a jsonschema error path."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else ("." if out else "") + str(p)
    return out or "(the object)"


def _deepest(error):
    """Of an anyOf/oneOf failure, the alternative that got furthest (its message names the real field)."""
    while error.context:
        error = jsonschema.exceptions.best_match(error.context)
    return error


def object_name(obj):
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") or meta.get("generateName") or "(no name)"
    return f"{obj.get('kind', '(no kind)')} {meta['namespace'] + '/' if meta.get('namespace') else ''}{name}"


def object_problems(obj):
    """One line per problem of one object: 'FIELD: MESSAGE'."""
    if not isinstance(obj, dict) or not isinstance(obj.get("apiVersion"), str) or not isinstance(obj.get("kind"), str):
        return ["(the object): no apiVersion and kind strings"]
    validator = validator_for(obj["apiVersion"], obj["kind"])
    if validator is None:
        return [f"apiVersion/kind: no schema for {obj['apiVersion']} {obj['kind']} in Kubernetes {KUBERNETES_VERSION} "
                f"or tests/k8s/schemas (add one: tests/k8s/derive_crd_schema.py)"]
    problems = []
    for error in sorted(validator.iter_errors(obj), key=lambda e: list(map(str, e.absolute_path))):
        deep = _deepest(error)
        problems.append(f"{field_path(deep.absolute_path)}: {deep.message[:300]}")
    return problems


def objects(doc):
    """(where, object) of a document: the object itself, or each item of a List ('items[3]')."""
    if isinstance(doc, dict) and doc.get("kind") == "List" and doc.get("apiVersion") == "v1":
        extra = sorted(set(doc) - LIST_KEYS)
        if extra:
            yield "(the List)", {"__problem__": f"{', '.join(extra)}: not a field of a v1 List"}
        for i, item in enumerate(doc.get("items") or []):
            yield f"items[{i}]", item
    else:
        yield "", doc


def is_kubernetes_object(doc):
    return isinstance(doc, dict) and isinstance(doc.get("apiVersion"), str) and isinstance(doc.get("kind"), str)


def file_documents(path, text=None):
    """The documents of a JSON or YAML file (YAML may hold several, separated by ---)."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    if path.endswith(".json"):
        return [json.loads(text)]
    return [d for d in yaml.safe_load_all(text) if d is not None]


def file_problems(path, documents, label=None):
    """'FILE: [document N] [items[i]] KIND NS/NAME: FIELD: MESSAGE' for every problem of the file's objects."""
    label = label or path
    out = []
    for n, doc in enumerate(documents):
        if not is_kubernetes_object(doc):
            continue
        where_doc = f"document {n + 1} " if len(documents) > 1 else ""
        for where, obj in objects(doc):
            prefix = f"{label}: {where_doc}{where + ' ' if where else ''}"
            if "__problem__" in obj:
                out.append(prefix + obj["__problem__"])
                continue
            out.extend(f"{prefix}{object_name(obj)}: {p}" for p in object_problems(obj))
    return out
