"""The cluster recipes measure what they say (docs/operator-tests.md): one worker per node, the node's name
(not the pod's) in every record, whole nodes, a per-node check with JUnit from every recipe, the admission
gang spread over nodes, and the audit pod mounting only the kubelet files it reads, read-only, with the two
capabilities it needs. Also check-node.sh on a fake placebench. Run: .venv/bin/python tests/k8s/test_recipes.py"""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_schema  # noqa: E402
import yaml  # noqa: E402
from recipes import K8S, pod_templates, recipe_documents  # noqa: E402

NODE_FILE = "/run/placebench/host-name"
# The only host paths any recipe may mount (the audit pod's kubelet files), each read-only.
AUDIT_HOST_PATHS = {"/var/lib/kubelet/pod-resources": "Directory", "/var/lib/kubelet/cpu_manager_state": "File",
                    "/var/lib/kubelet/memory_manager_state": "File", "/var/lib/kubelet/config.yaml": "File"}


def workload(name, kind):
    found = [d for d in recipe_documents(name) if d.get("kind") == kind]
    assert len(found) == 1, f"{name}: expected one {kind}"
    return found[0]


def env_of(container):
    return {e["name"]: e for e in container.get("env", [])}


def script_of(container):
    return "\n".join(container.get("command", []) + container.get("args", []))


def mounts_by_path(container):
    return {m["mountPath"]: m for m in container.get("volumeMounts", [])}


def volumes(pod_spec):
    return {v["name"]: v for v in pod_spec.get("volumes", [])}


class OneWorkerPerNode(unittest.TestCase):
    CASES = (("mpijob.yaml", "MPIJob", "Worker"), ("volcano-job.yaml", "Job", "mpiworker"),
             ("admission-job.yaml", "Job", "worker"))

    def test_required_anti_affinity_between_the_workers(self):
        for name, kind, role in self.CASES:
            with self.subTest(name):
                template = pod_templates(workload(name, kind))[role]
                terms = template["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                labels = template["metadata"]["labels"]
                spread = [t for t in terms if t["topologyKey"] == "kubernetes.io/hostname"]
                self.assertEqual(len(spread), 1, terms)
                selector = spread[0]["labelSelector"]["matchLabels"]
                # The workers select each other (and only this job's: a label with the job's name).
                self.assertTrue(selector.items() <= labels.items(), (selector, labels))
                self.assertIn("placebench/job", selector)
                self.assertEqual(selector["placebench/job"], workload(name, kind)["metadata"]["name"])

    def test_launchers_prefer_a_node_without_a_worker(self):
        # A rank's host is its node; admission --gang matches it to the only pod of the job on that node.
        for name, kind, launcher_role, worker_role in TheNodeNotThePod.CASES:
            with self.subTest(name):
                templates = pod_templates(workload(name, kind))
                terms = templates[launcher_role]["spec"]["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
                worker_labels = templates[worker_role]["metadata"]["labels"]
                term = terms[0]["podAffinityTerm"]
                self.assertEqual(term["topologyKey"], "kubernetes.io/hostname")
                self.assertTrue(term["labelSelector"]["matchLabels"].items() <= worker_labels.items())
                self.assertEqual(term["labelSelector"]["matchLabels"]["app.kubernetes.io/component"], "worker")

    def test_node_count_written_once(self):
        # The gang minimum is the controllers' default (every pod), so replicas is the one node count.
        mpijob = workload("mpijob.yaml", "MPIJob")
        self.assertNotIn("minAvailable", mpijob["spec"]["runPolicy"]["schedulingPolicy"])
        volcano = workload("volcano-job.yaml", "Job")
        self.assertNotIn("minAvailable", volcano["spec"])
        self.assertFalse(any("minAvailable" in t for t in volcano["spec"]["tasks"]))


class TheNodeNotThePod(unittest.TestCase):
    CASES = (("mpijob.yaml", "MPIJob", "Launcher", "Worker"), ("volcano-job.yaml", "Job", "mpimaster", "mpiworker"))

    def test_node_name_from_the_downward_api_reaches_every_rank(self):
        for name, kind, launcher_role, worker_role in self.CASES:
            with self.subTest(name):
                templates = pod_templates(workload(name, kind))
                launcher = templates[launcher_role]["spec"]["containers"][0]
                worker = templates[worker_role]["spec"]["containers"][0]
                node_ref = {"fieldRef": {"fieldPath": "spec.nodeName"}}
                self.assertEqual(env_of(worker)["PLACEBENCH_HOST_NAME"].get("valueFrom"), node_ref)
                # Ranks start over ssh (no pod environment): the worker writes the name into the file that
                # PLACEBENCH_HOST_NAME_FILE names, set on the launcher and forwarded (PLACEBENCH_*) to each rank.
                self.assertIn(f'"$PLACEBENCH_HOST_NAME" > {NODE_FILE} &&', script_of(worker))
                self.assertEqual(env_of(launcher)["PLACEBENCH_HOST_NAME_FILE"].get("value"), NODE_FILE)
                # Not PLACEBENCH_HOST_NAME on the launcher: the wrapper would forward the launcher's node to all.
                self.assertNotIn("PLACEBENCH_HOST_NAME", env_of(launcher))
                self.assertEqual(env_of(launcher)["NODE_NAME"].get("valueFrom"), node_ref)
                self.assertIn(f'"$NODE_NAME" > {NODE_FILE}', script_of(launcher))
                for role, template in templates.items():
                    container = template["spec"]["containers"][0]
                    mount = mounts_by_path(container).get(os.path.dirname(NODE_FILE))
                    self.assertIsNotNone(mount, f"{role}: {os.path.dirname(NODE_FILE)} mounted")
                    self.assertIn("emptyDir", volumes(template["spec"])[mount["name"]], role)

    def test_whole_nodes_guaranteed(self):
        for name, kind, _, worker_role in self.CASES:
            with self.subTest(name):
                doc = workload(name, kind)
                resources = pod_templates(doc)[worker_role]["spec"]["containers"][0]["resources"]
                self.assertEqual(resources["requests"], resources["limits"], "Guaranteed: requests = limits")
                for key in ("nvidia.com/gpu", "cpu", "memory"):
                    self.assertIn(key, resources["limits"])
                if kind == "MPIJob":
                    self.assertEqual(int(resources["limits"]["nvidia.com/gpu"]), doc["spec"]["slotsPerWorker"])


class EveryRecipeChecksAndWritesJUnit(unittest.TestCase):
    def test_launchers_check_each_node(self):
        for name, kind, launcher_role, worker_role in TheNodeNotThePod.CASES:
            with self.subTest(name):
                templates = pod_templates(workload(name, kind))
                script = script_of(templates[launcher_role]["spec"]["containers"][0])
                self.assertIn('mkdir -p "$out', script)
                self.assertIn("/junit", script)
                self.assertIn('/opt/placebench/scripts/k8s/check-node.sh "$out" /config/reference.yaml', script)
                self.assertIn("-x PLACEBENCH_HOST_NAME_FILE", script)
                self.assertIn("--map-by ppr:1:node", script)
                self.assertIn("exit $status", script)
                worker = templates[worker_role]
                config = mounts_by_path(worker["spec"]["containers"][0])["/config"]
                self.assertTrue(config.get("readOnly"))
                self.assertEqual(volumes(worker["spec"])[config["name"]]["configMap"],
                                 {"name": "placebench-ci", "optional": True})


class NoBroadHostAccess(unittest.TestCase):
    def test_host_paths_only_in_the_audit_pod_and_read_only(self):
        for name in sorted(f for f in os.listdir(K8S) if f.endswith(".yaml")):
            for doc in recipe_documents(name):
                for role, template in pod_templates(doc).items():
                    spec = template["spec"]
                    with self.subTest(f"{name} {role}"):
                        self.assertFalse(spec.get("hostPID") or spec.get("hostIPC"), "no host PID/IPC namespace")
                        host = {n: v["hostPath"] for n, v in volumes(spec).items() if "hostPath" in v}
                        if name != "audit-pod.yaml":
                            self.assertEqual(host, {})
                            continue
                        self.assertEqual({v["path"]: v["type"] for v in host.values()}, AUDIT_HOST_PATHS)
                        for container in spec["containers"]:
                            sc = container.get("securityContext", {})
                            self.assertFalse(sc.get("privileged"), container["name"])
                            for m in container.get("volumeMounts", []):
                                if m["name"] in host:
                                    self.assertTrue(m.get("readOnly"), f"{container['name']}: {m['mountPath']} read-only")
                                    self.assertEqual(m["mountPath"], host[m["name"]]["path"])

    def test_audit_capabilities(self):
        pod = workload("audit-pod.yaml", "Pod")
        self.assertTrue(pod["spec"]["shareProcessNamespace"])
        audit = {c["name"]: c for c in pod["spec"]["containers"]}["placebench-audit"]
        sc = audit["securityContext"]
        self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
        self.assertEqual(sorted(sc["capabilities"]["add"]), ["DAC_READ_SEARCH", "SYS_PTRACE"])
        self.assertIs(sc["allowPrivilegeEscalation"], False)
        # The PodResources socket is where the audit looks for it (the kubelet's default path).
        self.assertIn("/var/lib/kubelet/pod-resources", mounts_by_path(audit))


class HostNetworkVariant(unittest.TestCase):
    """scripts/k8s/host-network.py: the recipes for NCCL over the host network and RDMA, still accepted objects."""

    path = os.path.join(K8S, "host-network.py")

    def variant(self, *args):
        return subprocess.run([sys.executable, self.path, *args], capture_output=True, text=True, timeout=60)

    def test_workers_on_the_host_network_with_rdma(self):
        for name, kind, launcher_role, worker_role in TheNodeNotThePod.CASES:
            with self.subTest(name):
                r = self.variant(os.path.join(K8S, name), "--rdma", "rdma/rdma_shared_device_a=1", "--ssh-port", "2022")
                self.assertEqual(r.returncode, 0, r.stderr)
                docs = [d for d in yaml.safe_load_all(r.stdout) if d]
                self.assertEqual(k8s_schema.file_problems(name, docs), [])
                self.assertEqual([d["kind"] for d in docs], [d["kind"] for d in recipe_documents(name)])
                job = next(d for d in docs if d["kind"] == kind)
                templates = pod_templates(job)
                worker, launcher = templates[worker_role]["spec"], templates[launcher_role]["spec"]
                self.assertIs(worker["hostNetwork"], True)
                self.assertEqual(worker["dnsPolicy"], "ClusterFirstWithHostNet")
                self.assertNotIn("hostNetwork", launcher)
                self.assertIn("/usr/sbin/sshd -p 2022 -D", script_of(worker["containers"][0]))
                resources = worker["containers"][0]["resources"]
                self.assertEqual(resources["limits"]["rdma/rdma_shared_device_a"], 1)
                self.assertEqual(resources["requests"], resources["limits"])
                env = {k: v.get("value") for k, v in env_of(launcher["containers"][0]).items()}
                self.assertEqual(env["PLACEBENCH_MPIRUN_ARGS"], "--mca plm_rsh_args -p2022")
                self.assertEqual((env["NCCL_DEBUG"], env["NCCL_DEBUG_SUBSYS"]), ("INFO", "INIT,NET"))
                # Every mpirun of the launcher reaches the workers' port: the wrapper reads the variable, the
                # per-node check's own mpirun passes it.
                self.assertIn("-x PLACEBENCH_BIN ${PLACEBENCH_MPIRUN_ARGS:-}", script_of(launcher["containers"][0]))
                self.assertIn("podAntiAffinity", worker["affinity"])

    def test_refuses_what_it_cannot_change(self):
        r = self.variant(os.path.join(K8S, "audit-pod.yaml"))
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertIn("no MPIJob or Volcano Job with workers and a launcher", r.stderr)
        r = self.variant(os.path.join(K8S, "mpijob.yaml"), "--rdma", "rdma/ib")
        self.assertEqual(r.returncode, 2)
        self.assertIn("give RESOURCE=COUNT", r.stderr)


class CheckNodeScript(unittest.TestCase):
    """scripts/k8s/check-node.sh with a fake placebench that prints its arguments."""

    path = os.path.join(K8S, "check-node.sh")

    def run_script(self, out, reference, **env):
        full = {k: v for k, v in os.environ.items() if not k.startswith("PLACEBENCH_HOST_NAME")}
        full.update(PLACEBENCH_BIN="/bin/echo", **env)
        return subprocess.run(["bash", self.path, out, reference], capture_output=True, text=True, env=full, timeout=30)

    def test_checks_this_nodes_newest_run(self):
        with tempfile.TemporaryDirectory() as out:
            for node in ("gpu-a", "gpu-b"):
                for run in ("20261201-100000-x", "20261201-110000-x"):
                    os.makedirs(os.path.join(out, "runs", node, run))
            ref = os.path.join(out, "reference.yaml")
            open(ref, "w").close()
            name_file = os.path.join(out, "host-name")
            with open(name_file, "w") as f:
                f.write("gpu-b\n")
            r = self.run_script(out, ref, PLACEBENCH_HOST_NAME_FILE=name_file)
            self.assertEqual(r.returncode, 0, r.stderr)
            run = os.path.join(out, "runs", "gpu-b", "20261201-110000-x")
            self.assertEqual(r.stdout.strip(), f"check {run} --reference {ref} --junit {out}/junit/gpu-b.xml "
                                               f"--markdown {run}/check.md")
            r = self.run_script(out, ref, PLACEBENCH_HOST_NAME="gpu-a", PLACEBENCH_HOST_NAME_FILE=name_file)
            self.assertIn("/runs/gpu-a/", r.stdout)
            r = self.run_script(out, ref, PLACEBENCH_HOST_NAME="gpu-z")
            self.assertEqual(r.returncode, 1)
            self.assertIn("no run of node gpu-z", r.stderr)
            r = self.run_script(out, os.path.join(out, "absent.yaml"), PLACEBENCH_HOST_NAME="gpu-a")
            self.assertEqual((r.returncode, r.stdout.startswith("check-node.sh: no ")), (0, True), r.stdout)


if __name__ == "__main__":
    unittest.main()
