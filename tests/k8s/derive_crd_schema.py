"""Derives the JSON schema that tests/k8s/test_k8s_schemas.py checks a custom resource against, from the
project's published CustomResourceDefinition (its openAPIV3Schema for one version), and writes it to
tests/k8s/schemas/<group>_<version>_<kind>.json. Run by hand when a scheduler is updated; the test does not
need the CRDs. Usage:

  git -C volcano show v1.15.1:config/crd/volcano/bases/batch.volcano.sh_jobs.yaml |
    .venv/bin/python tests/k8s/derive_crd_schema.py --version v1alpha1 \\
      --source volcano-sh/volcano@v1.15.1:config/crd/volcano/bases/batch.volcano.sh_jobs.yaml

What the API server does with the CRD, and what is kept of it:
  - the structural schema (types, enums, required, bounds, patterns, int-or-string, nullable) is kept, and an
    object with listed properties gets additionalProperties: false unless x-kubernetes-preserve-unknown-fields
    says otherwise (kubectl's default --validate=strict rejects unknown fields);
  - an embedded pod template (metadata + spec.containers), pod spec or Job template is replaced by a $ref to
    the core type of the same Kubernetes schemas the core objects are checked against, so the pods the
    controller will create are checked field by field (and the file stays small);
  - metadata of the object is ObjectMeta;
  - CEL rules (x-kubernetes-validations) and formats cannot be checked here: the count of CEL rules dropped is
    written into the schema's $comment.
"""
import argparse
import json
import os
import sys

import yaml

CORE = "https://kubernetes.io/api/_definitions.json#/$defs/"
HERE = os.path.dirname(os.path.abspath(__file__))
KEEP = {"type", "enum", "required", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
        "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "format"}


def core_ref(node):
    """The core type an embedded schema stands for, or None."""
    props = node.get("properties", {})
    spec = props.get("spec", {}).get("properties", {})
    if "metadata" in props and "containers" in spec:
        return "io.k8s.api.core.v1.PodTemplateSpec"
    if "containers" in props and "volumes" in props:
        return "io.k8s.api.core.v1.PodSpec"
    if "metadata" in props and "template" in spec and "backoffLimit" in spec:
        return "io.k8s.api.batch.v1.JobTemplateSpec"
    return None


def convert(node, counts, root=False):
    if not isinstance(node, dict):
        return node
    counts["cel"] += len(node.get("x-kubernetes-validations", []))
    ref = None if root else core_ref(node)
    if ref:
        counts["refs"].add(ref)
        return {"$ref": CORE + ref}
    out = {k: v for k, v in node.items() if k in KEEP}
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in node and not node.get("x-kubernetes-int-or-string"):
            out[key] = [convert(n, counts) for n in node[key]]
    if "items" in node:
        out["items"] = convert(node["items"], counts)
    if "properties" in node:
        out["properties"] = {k: convert(v, counts) for k, v in node["properties"].items()}
        if root and "metadata" in out["properties"]:
            out["properties"]["metadata"] = {"$ref": CORE + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    if isinstance(node.get("additionalProperties"), dict):
        out["additionalProperties"] = convert(node["additionalProperties"], counts)
    elif "properties" in node and not node.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", required=True, help="the CRD version to take (e.g. v1beta1)")
    ap.add_argument("--source", required=True, help="repository@tag:path of the CRD (written into the schema)")
    ap.add_argument("crd", nargs="?", default="-", help="the CRD YAML (default: stdin)")
    args = ap.parse_args()
    text = sys.stdin.read() if args.crd == "-" else open(args.crd, encoding="utf-8").read()
    crd = next(d for d in yaml.safe_load_all(text) if d and d.get("kind") == "CustomResourceDefinition")
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    version = next(v for v in crd["spec"]["versions"] if v["name"] == args.version)
    counts = {"cel": 0, "refs": set()}
    schema = convert(version["schema"]["openAPIV3Schema"], counts, root=True)
    schema["properties"]["apiVersion"] = {"enum": [f"{group}/{args.version}"]}
    schema["properties"]["kind"] = {"enum": [kind]}
    schema["required"] = sorted(set(schema.get("required", [])) | {"apiVersion", "kind", "metadata"})
    comment = (f"{kind} {group}/{args.version}, derived by tests/k8s/derive_crd_schema.py from {args.source}. "
               f"Embedded core types checked as: {', '.join(sorted(counts['refs'])) or 'none'}. "
               f"Not checked: {counts['cel']} CEL rules (x-kubernetes-validations), formats.")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": comment, **schema}
    path = os.path.join(HERE, "schemas", f"{group}_{args.version}_{kind}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(schema, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{path}: {comment}")


if __name__ == "__main__":
    main()
