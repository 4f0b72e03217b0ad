"""The host-network (and RDMA) variant of a cluster recipe, for NCCL over the fabric instead of the pod network
(docs/operator-tests.md, "NCCL over the host network"). Prints the recipe with its workers changed:

  - hostNetwork: true with dnsPolicy ClusterFirstWithHostNet (the pods still resolve the job's service names);
  - sshd on --ssh-port (default 2222), not 22, which the node's own sshd holds, and the launcher's mpirun told
    so (PLACEBENCH_MPIRUN_ARGS="--mca plm_rsh_args -pPORT", read by scripts/mpirun-placebench.sh and by the
    per-node check's mpirun);
  - with --rdma RESOURCE=COUNT, that device-plugin resource asked for by each worker (requests = limits; e.g.
    rdma/rdma_shared_device_a=1 from the k8s-rdma-shared-dev-plugin, or rdma/ib=1), so /dev/infiniband is in
    the pod; IPC_LOCK, which the workers already have, lets NCCL register memory;
  - NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=INIT,NET on the launcher (forwarded to every rank): each rank's log
    says which transport NCCL chose (NET/IB or NET/Socket), so a collective's bandwidth can be read against it.

Usage: .venv/bin/python scripts/k8s/host-network.py scripts/k8s/mpijob.yaml [--rdma rdma/ib=1] | kubectl apply -f -
       (scripts/k8s/volcano-job.yaml the same way). Exit 2 with one line for a file that is not one of the two.
"""
import argparse
import sys

import yaml

WORKERS = {"MPIJob": ("Worker", "Launcher"), "Job": ("mpiworker", "mpimaster")}


def roles(doc):
    """(worker template, launcher template) of an MPIJob or a Volcano Job, else None."""
    kind = doc.get("kind")
    if kind == "MPIJob":
        specs = doc["spec"]["mpiReplicaSpecs"]
        return specs["Worker"]["template"], specs["Launcher"]["template"]
    if kind == "Job" and doc.get("apiVersion", "").startswith("batch.volcano.sh/"):
        tasks = {t["name"]: t["template"] for t in doc["spec"]["tasks"]}
        worker, launcher = WORKERS["Job"]
        if worker in tasks and launcher in tasks:
            return tasks[worker], tasks[launcher]
    return None


def set_env(container, name, value):
    env = [e for e in container.setdefault("env", []) if e["name"] != name]
    container["env"] = env + [{"name": name, "value": value}]


def host_network(doc, ssh_port, rdma):
    worker, launcher = roles(doc)
    spec = worker["spec"]
    spec["hostNetwork"] = True
    spec["dnsPolicy"] = "ClusterFirstWithHostNet"
    container = spec["containers"][0]
    command = container["command"][-1]
    if "/usr/sbin/sshd -D" not in command:
        raise ValueError("the worker's command does not start /usr/sbin/sshd -D")
    container["command"][-1] = command.replace("/usr/sbin/sshd -D", f"/usr/sbin/sshd -p {ssh_port} -D")
    if rdma:
        name, count = rdma
        for key in ("limits", "requests"):
            container["resources"].setdefault(key, {})[name] = count
    head = launcher["spec"]["containers"][0]
    set_env(head, "PLACEBENCH_MPIRUN_ARGS", f"--mca plm_rsh_args -p{ssh_port}")
    set_env(head, "NCCL_DEBUG", "INFO")
    set_env(head, "NCCL_DEBUG_SUBSYS", "INIT,NET")
    return doc


def parse_rdma(text):
    name, sep, count = text.partition("=")
    if not sep or not name or not count.isdigit() or int(count) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': give RESOURCE=COUNT, e.g. rdma/rdma_shared_device_a=1")
    return name, int(count)


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the launcher's script) as literal blocks, as the recipes write them."""


_Dumper.add_representer(str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style="|" if "\n" in v else None))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("recipe", help="scripts/k8s/mpijob.yaml or scripts/k8s/volcano-job.yaml")
    ap.add_argument("--ssh-port", type=int, default=2222, help="the workers' sshd port (default 2222)")
    ap.add_argument("--rdma", type=parse_rdma, help="RESOURCE=COUNT: an RDMA device-plugin resource per worker")
    args = ap.parse_args(argv)
    with open(args.recipe, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    jobs = [d for d in docs if roles(d)]
    if len(jobs) != 1:
        print(f"host-network.py: {args.recipe}: no MPIJob or Volcano Job with workers and a launcher", file=sys.stderr)
        return 2
    try:
        host_network(jobs[0], args.ssh_port, args.rdma)
    except ValueError as e:
        print(f"host-network.py: {args.recipe}: {e}", file=sys.stderr)
        return 2
    yaml.dump_all(docs, sys.stdout, Dumper=_Dumper, sort_keys=False, width=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
