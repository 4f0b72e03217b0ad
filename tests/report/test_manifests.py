"""The cluster CI launch templates, parsed and checked for the fields that matter (kubectl is not
available here, so nothing is applied): the Kubeflow MPIJob, the Volcano Job with its gang and queue, and
the Slurm batch script. Run: .venv/bin/python tests/report/test_manifests.py"""
import os
import re
import subprocess
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
        self.assertEqual(int(env["NPERNODE"]), gpus)
        self.assertEqual(int(env["NODES"]), self.specs["Worker"]["replicas"])

    def test_runs_placebench_and_collects_results(self):
        launcher = self.specs["Launcher"]["template"]["spec"]["containers"][0]
        script = script_of(launcher)
        for step in ("placebench run", "placebench check", "--junit", "collective", "gang", "placebench report",
                     "mpirun-placebench.sh", "mpirun"):
            self.assertIn(step.split()[-1], script, step)
        self.assertRegex(script, r"placebench run [^\n]*\\\n\s*--out \"\$1/runs/\$h\"")
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
        # Volcano creates the Job's PodGroup with minMember = minAvailable: the GPU workers, all or none.
        self.assertEqual(self.job["spec"]["minAvailable"], workers["replicas"])
        self.assertEqual(workers.get("minAvailable"), workers["replicas"])
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
        self.assertEqual(int(env["NPERNODE"]), gpu_limit(self.tasks["mpiworker"]["template"]["spec"]["containers"][0]))


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
        for step in ('"$0" run', '"$0" check', "--junit", "collective", "gang", '"$pb" report', "--cpu-bind=none",
                     "mpirun-placebench.sh", "exit $status"):
            self.assertIn(step, self.text)


if __name__ == "__main__":
    unittest.main()
