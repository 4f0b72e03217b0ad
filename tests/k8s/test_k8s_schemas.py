"""Every Kubernetes object of the repository is one an API server would accept (tests/k8s/k8s_schema.py says
against which schemas): the recipes in scripts/k8s/ (admission-job.yaml rendered as admission-test.sh renders
it) and every JSON or YAML file under tests/ whose document is a Kubernetes object (kubectl get -o json Lists
of pods, events and PodGroups, kubelet config files, ...), found by glob so new fixtures are checked too.
A failure names the file, the object and the field. Run: .venv/bin/python tests/k8s/test_k8s_schemas.py"""
import copy
import glob
import json
import os
import re
import sys
import unittest

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_schema  # noqa: E402
from recipes import K8S, ROOT, render_admission_job  # noqa: E402

# Fixtures that are broken on purpose (a reader's error path is tested with them): each must stay unreadable,
# else it belongs in the check like any other.
NOT_PARSEABLE = {"tests/fixtures/proc/kubelet/malformed.yaml"}


def rel(path):
    return os.path.relpath(path, ROOT)


def test_files():
    files = []
    for ext in ("json", "yaml", "yml"):
        files += glob.glob(os.path.join(ROOT, "tests", "**", f"*.{ext}"), recursive=True)
    # Not the schemas themselves, nor the fuzz targets' inputs (odd on purpose: they exercise the readers), nor
    # the DRA drivers' device metadata files (a stream of DeviceMetadata objects a driver writes into the
    # container, KEP-5304: no API server serves or validates them; tests/fixtures/audit/dra/metadata).
    return sorted(f for f in files if "/tests/k8s/schemas/" not in f and "/tests/fuzz/" not in f
                  and "/tests/fixtures/audit/dra/metadata/" not in f)


class Recipes(unittest.TestCase):
    def test_every_manifest_is_accepted(self):
        manifests = sorted(glob.glob(os.path.join(K8S, "*.yaml")))
        self.assertGreaterEqual(len(manifests), 4)
        problems, objects = [], 0
        for path in manifests:
            text = render_admission_job() if path.endswith("admission-job.yaml") else None
            docs = k8s_schema.file_documents(path, text)
            objects += sum(1 for d in docs if k8s_schema.is_kubernetes_object(d))
            problems += k8s_schema.file_problems(path, docs, rel(path))
        self.assertGreaterEqual(objects, 6)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


class Fixtures(unittest.TestCase):
    def test_every_kubernetes_fixture_is_accepted(self):
        problems, checked = [], []
        for path in test_files():
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if "apiVersion" not in text:
                continue
            try:
                docs = k8s_schema.file_documents(path, text)
            except (ValueError, yaml.YAMLError) as e:  # json.JSONDecodeError is a ValueError
                if rel(path) not in NOT_PARSEABLE:
                    problems.append(f"{rel(path)}: not readable JSON/YAML: {str(e).splitlines()[0]}")
                continue
            if rel(path) in NOT_PARSEABLE:
                problems.append(f"{rel(path)}: listed as not parseable but it parses; take it off NOT_PARSEABLE")
            if any(k8s_schema.is_kubernetes_object(d) for d in docs):
                checked.append(rel(path))
                problems += k8s_schema.file_problems(path, docs, rel(path))
        # The check found the fixtures it is meant for (a glob that matched nothing would pass).
        self.assertTrue(any(p.startswith("tests/fixtures/admission/") for p in checked), checked)
        self.assertTrue(any(p.endswith("kubelet/config.yaml") for p in checked), checked)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


class TheCheckCanFail(unittest.TestCase):
    """Objects an API server refuses are refused here, with the file, the object and the field named."""

    @classmethod
    def setUpClass(cls):
        pods = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/admission/*/*-pods-events.json")))
        pgs = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/admission/*/*-podgroups.json")))
        with open(pods[0], encoding="utf-8") as f:
            cls.pods = json.load(f)
        with open(pgs[0], encoding="utf-8") as f:
            cls.podgroups = json.load(f)

    def problems(self, doc):
        return k8s_schema.file_problems("x.json", [doc])

    def first(self, doc, kind):
        return next(i for i in doc["items"] if i["kind"] == kind)

    def test_the_unchanged_fixture_passes(self):
        self.assertEqual(self.problems(self.pods), [])

    def test_unknown_field_in_a_pod(self):
        doc = copy.deepcopy(self.pods)
        pod = self.first(doc, "Pod")
        pod["spec"]["containers"][0]["resorces"] = {}
        index = doc["items"].index(pod)
        name = f"Pod {pod['metadata']['namespace']}/{pod['metadata']['name']}"
        p = self.problems(doc)
        self.assertEqual(len(p), 1, p)
        self.assertTrue(p[0].startswith(f"x.json: items[{index}] {name}: spec.containers[0]: "), p)
        self.assertIn("'resorces'", p[0])

    def test_wrong_type_in_a_pod_status(self):
        doc = copy.deepcopy(self.pods)
        pod = self.first(doc, "Pod")
        pod["status"]["phase"] = 3
        p = self.problems(doc)
        self.assertTrue(any(": status.phase: 3 is not of type" in x for x in p), p)

    def test_event_with_a_count_string(self):
        doc = copy.deepcopy(self.pods)
        self.first(doc, "Event")["count"] = "56"
        p = self.problems(doc)
        self.assertTrue(any(re.search(r"items\[\d+\] Event \S+: count: '56' is not of type 'integer'", x) for x in p), p)

    def test_podgroup_crd_fields(self):
        doc = copy.deepcopy(self.podgroups)
        pg = doc["items"][0]
        pg["spec"]["minMember"] = "4"
        pg["spec"]["minMembers"] = 4
        p = self.problems(doc)
        self.assertTrue(any("PodGroup" in x and "spec.minMember: '4' is not of type 'integer'" in x for x in p), p)
        self.assertTrue(any("PodGroup" in x and "'minMembers' was unexpected" in x for x in p), p)

    def test_a_custom_resource_pod_template_is_checked_as_a_pod(self):
        text = render_admission_job()
        job = k8s_schema.file_documents("admission-job.yaml", text)[0]
        self.assertEqual(k8s_schema.file_problems("a.yaml", [job]), [])
        job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["commandd"] = ["true"]
        p = k8s_schema.file_problems("a.yaml", [job])
        self.assertTrue(any("Job default/placebench-admission: spec.tasks[0].template.spec.containers[0]: " in x
                            and "'commandd'" in x for x in p), p)

    def test_unknown_kind(self):
        p = self.problems({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
        self.assertEqual(p, ["x.json: Widget w: apiVersion/kind: no schema for example.com/v1 Widget in Kubernetes "
                             f"{k8s_schema.KUBERNETES_VERSION} or tests/k8s/schemas (add one: tests/k8s/derive_crd_schema.py)"])

    def test_list_envelope(self):
        doc = copy.deepcopy(self.pods)
        doc["item"] = []
        self.assertIn("x.json: (the List) item: not a field of a v1 List", self.problems(doc))

    def test_kubelet_config_policy_names(self):
        bad = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
               "topologyManagerPolicy": "single-numa", "memoryManagerPolicy": "static"}
        p = self.problems(bad)
        self.assertEqual(len(p), 2, p)
        self.assertTrue(any("topologyManagerPolicy: 'single-numa' is not one of" in x for x in p), p)
        self.assertTrue(any("memoryManagerPolicy: 'static' is not one of" in x for x in p), p)

    def test_every_custom_resource_schema_names_its_source(self):
        for path in glob.glob(os.path.join(k8s_schema.CRD_SCHEMAS, "*.json")):
            with self.subTest(os.path.basename(path)):
                with open(path, encoding="utf-8") as f:
                    schema = json.load(f)
                self.assertRegex(schema["$comment"], r"(@v[\d.]+:|v1\.\d+)", "a source and version")
                group_version, kind = schema["properties"]["apiVersion"]["enum"][0], schema["properties"]["kind"]["enum"][0]
                self.assertEqual(k8s_schema.crd_schema_path(group_version, kind), path)


if __name__ == "__main__":
    unittest.main()
