"""The cluster CI launch templates, parsed and checked for the fields that matter (kubectl is not
available here, so nothing is applied): the Kubeflow MPIJob, the Volcano Job with its gang and queue, the
Slurm batch script (bash -n and a dry run) and the mpirun wrapper (bash -n, --help, --dry-run). Every
launcher measures every node (`run --per-node`), admits its pods as one gang, and states the GPUs per node
once. Run: .venv/bin/python tests/report/test_manifests.py"""
import os
import re
import subprocess
import tempfile
import unittest

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
K8S = os.path.join(ROOT, "scripts", "k8s")


def load(name):
    with open(os.path.join(K8S, name), encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d]


def by_kind(docs, kind):
    found = [d for d in docs if d.get("kind") == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


def job_document_text(name, kind):
    """The raw text of the YAML document of `kind` in scripts/k8s/NAME (anchors and aliases as written)."""
    with open(os.path.join(K8S, name), encoding="utf-8") as f:
        docs = re.split(r"^---$", f.read(), flags=re.M)
    found = [d for d in docs if re.search(rf"^kind: {kind}$", d, re.M)]
    assert len(found) == 1, f"expected one {kind} document in {name}"
    return found[0]


def gpu_count_written_once(test, text):
    """The GPUs per node are written once in the document: one anchor, every other use an alias of it."""
    literal = re.findall(r"nvidia\.com/gpu:\s*&(\w+)\s+\"?\d+", text) + re.findall(r"slotsPerWorker:\s*&(\w+)\s+\d+", text)
    test.assertEqual(len(literal), 1, "one anchored GPU count")
    test.assertEqual(re.findall(r"nvidia\.com/gpu:\s*\"?\d+", text), [], "no second literal GPU count")
    test.assertGreaterEqual(text.count("*" + literal[0]), 1, "the other GPU counts are aliases of it")


class EveryDocument(unittest.TestCase):
    def test_embedded_scripts_parse(self):
        mpijob = by_kind(load("mpijob.yaml"), "MPIJob")["spec"]["mpiReplicaSpecs"]["Launcher"]
        volcano = {t["name"]: t for t in by_kind(load("volcano-job.yaml"), "Job")["spec"]["tasks"]}["mpimaster"]
        for name, role in (("mpijob launcher", mpijob), ("volcano mpimaster", volcano)):
            script = role["template"]["spec"]["containers"][0]["args"][0]
            r = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, f"{name}: {r.stderr}")

    def test_required_fields(self):
        for name in ("mpijob.yaml", "volcano-job.yaml"):
            for doc in load(name):
                with self.subTest(f"{name} {doc.get('kind')}"):
                    for key in ("apiVersion", "kind", "metadata", "spec"):
                        self.assertIn(key, doc)
                    self.assertTrue(doc["metadata"].get("name"))
                    if doc["kind"] == "PersistentVolumeClaim":
                        self.assertTrue(doc["spec"].get("storageClassName"), "a storage class to edit")
                        self.assertIn("ReadWriteMany", doc["spec"]["accessModes"])


def gpu_limit(container):
    return int(container.get("resources", {}).get("limits", {}).get("nvidia.com/gpu", 0))


def claims(pod_spec):
    return {v["persistentVolumeClaim"]["claimName"] for v in pod_spec.get("volumes", []) if "persistentVolumeClaim" in v}


def mounts(container):
    return {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}


def script_of(container):
    return "\n".join(container.get("command", []) + container.get("args", []))


class MpiJob(unittest.TestCase):
    def setUp(self):
        self.docs = load("mpijob.yaml")
        self.job = by_kind(self.docs, "MPIJob")
        self.specs = self.job["spec"]["mpiReplicaSpecs"]

    def test_api_and_replicas(self):
        self.assertEqual(self.job["apiVersion"], "kubeflow.org/v2beta1")
        self.assertEqual(self.specs["Launcher"]["replicas"], 1)
        self.assertGreaterEqual(self.specs["Worker"]["replicas"], 2)
        self.assertEqual(self.job["spec"].get("mpiImplementation"), "OpenMPI")

    def test_workers_hold_gpus_and_slots_match(self):
        worker = self.specs["Worker"]["template"]["spec"]["containers"][0]
        gpus = gpu_limit(worker)
        self.assertGreater(gpus, 0)
        self.assertEqual(self.job["spec"]["slotsPerWorker"], gpus, "one rank per GPU")
        launcher = self.specs["Launcher"]["template"]["spec"]["containers"][0]
        self.assertEqual(gpu_limit(launcher), 0, "the launcher needs no GPU")
        env = {e["name"]: e.get("value") for e in launcher.get("env", [])}
        # Ranks per node and nodes come from the operator's host file, not from copies of the counts.
        self.assertNotIn("NPERNODE", env)
        self.assertNotIn("NODES", env)
        script = script_of(launcher)
        self.assertIn("/etc/mpi/hostfile", script)
        gpu_count_written_once(self, job_document_text("mpijob.yaml", "MPIJob"))

    def test_gang_scheduling(self):
        # The PodGroup's minimum is the operator's default, every pod (workers + 1): the node count is written
        # once (Worker.replicas), not copied into a minAvailable that could drift from it.
        policy = self.job["spec"]["runPolicy"]["schedulingPolicy"]
        self.assertNotIn("minAvailable", policy)
        self.assertGreater(policy.get("scheduleTimeoutSeconds", 0), 0)

    def test_runs_placebench_and_collects_results(self):
        launcher = self.specs["Launcher"]["template"]["spec"]["containers"][0]
        script = script_of(launcher)
        for step in ("placebench run", "check-node.sh", "collective", "gang", "placebench report",
                     "mpirun-placebench.sh", "mpirun"):
            self.assertIn(step.split()[-1], script, step)
        # Every node measured: one rank per node, each writing runs/<node>/<run>/, each checked on its node.
        self.assertRegex(script, r'"\$wrap" --hostfile "\$hostfile" --npernode 1 -n "\$nodes" -- \\\n\s*run --per-node '
                                 r'--config "\$CONFIG" --out "\$out/runs"')
        self.assertRegex(script, r"--map-by ppr:1:node [^\n]*-np \"\$nodes\"")
        self.assertIn('/opt/placebench/scripts/k8s/check-node.sh "$out" /config/reference.yaml', script)
        claim = by_kind(self.docs, "PersistentVolumeClaim")["metadata"]["name"]
        self.assertIn("ReadWriteMany", by_kind(self.docs, "PersistentVolumeClaim")["spec"]["accessModes"])
        for role in ("Launcher", "Worker"):
            pod = self.specs[role]["template"]["spec"]
            self.assertEqual(claims(pod), {claim}, role)
            self.assertEqual(mounts(pod["containers"][0]).get("/results"), "results", role)
        self.assertIn("$RESULTS", script)

    def test_exit_status_keeps_failed_checks(self):
        script = script_of(self.specs["Launcher"]["template"]["spec"]["containers"][0])
        self.assertIn("exit $status", script)
        self.assertEqual(self.job["spec"]["runPolicy"]["backoffLimit"], 0)


class VolcanoJob(unittest.TestCase):
    def setUp(self):
        self.docs = load("volcano-job.yaml")
        self.job = by_kind(self.docs, "Job")
        self.tasks = {t["name"]: t for t in self.job["spec"]["tasks"]}

    def test_gang_is_every_worker(self):
        self.assertEqual(self.job["apiVersion"], "batch.volcano.sh/v1alpha1")
        self.assertEqual(self.job["spec"]["schedulerName"], "volcano")
        workers = self.tasks["mpiworker"]
        # Volcano creates the Job's PodGroup with minMember = minAvailable, which its webhook defaults to every
        # pod (each task's replicas, summed): all or none; less would let the workers hold GPUs while the
        # master is Pending. Left to the default, the node count is written once (mpiworker replicas).
        self.assertNotIn("minAvailable", self.job["spec"])
        self.assertNotIn("minAvailable", workers)
        self.assertFalse(any("minAvailable" in t for t in self.tasks.values()))
        self.assertGreater(gpu_limit(workers["template"]["spec"]["containers"][0]), 0)
        self.assertEqual(gpu_limit(self.tasks["mpimaster"]["template"]["spec"]["containers"][0]), 0)

    def test_queue_exists_and_bounds_gpus(self):
        queue = by_kind(self.docs, "Queue")
        self.assertEqual(queue["apiVersion"], "scheduling.volcano.sh/v1beta1")
        self.assertEqual(self.job["spec"]["queue"], queue["metadata"]["name"])
        workers = self.tasks["mpiworker"]
        need = workers["replicas"] * gpu_limit(workers["template"]["spec"]["containers"][0])
        self.assertGreaterEqual(int(queue["spec"]["capability"]["nvidia.com/gpu"]), need)

    def test_runs_the_gang_and_collects_results(self):
        self.assertIn("ssh", self.job["spec"]["plugins"])
        self.assertIn("svc", self.job["spec"]["plugins"])
        master = self.tasks["mpimaster"]
        self.assertIn({"event": "TaskCompleted", "action": "CompleteJob"}, master["policies"])
        script = script_of(master["template"]["spec"]["containers"][0])
        for step in ("gang", "--missing", "--deadline", "collective", "placebench report", "/etc/volcano/mpiworker.host",
                     "mpirun-placebench.sh"):
            self.assertIn(step, script)
        claim = by_kind(self.docs, "PersistentVolumeClaim")["metadata"]["name"]
        for name, task in self.tasks.items():
            pod = task["template"]["spec"]
            self.assertEqual(claims(pod), {claim}, name)
            self.assertEqual(mounts(pod["containers"][0]).get("/results"), "results", name)
        env = {e["name"]: e.get("value") for e in master["template"]["spec"]["containers"][0]["env"]}
        self.assertIsInstance(env["NPERNODE"], str)  # an env value must be a string
        self.assertEqual(int(env["NPERNODE"]), gpu_limit(self.tasks["mpiworker"]["template"]["spec"]["containers"][0]))
        gpu_count_written_once(self, job_document_text("volcano-job.yaml", "Job"))
        self.assertIn('"$wrap" --hosts "$nodes" --npernode 1 -- run --per-node', script)


class SlurmBatch(unittest.TestCase):
    def setUp(self):
        self.path = os.path.join(ROOT, "scripts", "slurm", "placebench.sbatch")
        with open(self.path, encoding="utf-8") as f:
            self.text = f.read()

    def test_syntax_and_directives(self):
        r = subprocess.run(["bash", "-n", self.path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        directives = dict(re.findall(r"^#SBATCH --([a-z-]+)(?:=(\S+))?", self.text, re.M))
        for key in ("nodes", "ntasks-per-node", "gres", "time", "exclusive"):
            self.assertIn(key, directives)
        self.assertTrue(directives["gres"].startswith("gpu:"))

    def test_steps(self):
        for step in ('"$pb" run --per-node', '"$0" check', "--junit", "collective", "gang", '"$pb" report',
                     "--cpu-bind=none", "mpirun-placebench.sh", "exit $status"):
            self.assertIn(step, self.text)

    def test_dry_run(self):
        with tempfile.TemporaryDirectory() as out:
            env = dict(os.environ, PLACEBENCH_HOME=ROOT, RESULTS=out, PLACEBENCH_DRY_RUN="1", REFERENCE="refs.yaml")
            if not os.access(os.path.join(ROOT, "build", "placebench"), os.X_OK):
                self.skipTest("no build/placebench")
            r = subprocess.run(["bash", self.path], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            steps = [l for l in r.stderr.splitlines() if l.startswith("+ ")]
            self.assertRegex(steps[0], r"^\+ srun --ntasks-per-node=1 .* run --per-node --config \S+ --out " + re.escape(out) + "/runs$")
            self.assertIn("check", steps[1])
            self.assertTrue(any("-- collective" in l for l in steps) and any("-- gang" in l for l in steps), steps)
            self.assertTrue(steps[-1].endswith(f"report {out} -o {out}/report.html"), steps[-1])
            left = [f for _, _, files in os.walk(out) for f in files]
            self.assertEqual(left, [], "a dry run (every step skipped) leaves no empty JSON file")


class MpirunWrapper(unittest.TestCase):
    path = os.path.join(ROOT, "scripts", "mpirun-placebench.sh")

    def run_wrapper(self, *args):
        env = dict(os.environ, PLACEBENCH_BIN="/bin/true")
        return subprocess.run([self.path, *args], capture_output=True, text=True, env=env, timeout=30)

    def test_syntax_and_help(self):
        r = subprocess.run(["bash", "-n", self.path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        h = self.run_wrapper("--help")
        self.assertEqual(h.returncode, 0, h.stderr)
        self.assertTrue(h.stdout.startswith("Launches a placebench subcommand"), h.stdout[:80])
        self.assertNotIn("set -euo", h.stdout)
        self.assertNotIn("(end of help)", h.stdout)
        self.assertFalse(any(l.startswith("#") for l in h.stdout.splitlines()), h.stdout)

    def test_dry_run_launches_run_per_node_without_an_arm(self):
        r = self.run_wrapper("--dry-run", "--hosts", "n1:1,n2:1", "--npernode", "1", "--", "run", "--per-node", "--out", "r")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"--map-by ppr:1:node .* /bin/true run --per-node --out r $")
        self.assertNotIn("--arm", r.stdout)
        c = self.run_wrapper("--dry-run", "-n", "2", "--", "collective", "--json")
        self.assertIn("/bin/true collective --arm local --json", c.stdout)
        bad = self.run_wrapper("--dry-run", "--arm", "local", "--", "run")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("run takes its arms from its config", bad.stderr)


if __name__ == "__main__":
    unittest.main()
