"""Admission timelines (`placebench admission --json`, docs/admission.md): a Gantt chart per gang job, one row
per pod, from creation to release: pending (created -> scheduled), waiting allocation (bound while the gang is
not yet whole: stranded GPUs, hatched red), starting (scheduled -> Ready, or -> the first useful step from the
gang JSON), running (-> release or the end of observation), held after a failure (stranded too, -> release);
the gang's full binding, all-ready, failure and cleanup marked as vertical lines. A pod is drawn against its
own attempt (the latest attempt that began before it was created): a recreated gang has its own full binding.
Times are seconds since the job's first pod or PodGroup was created."""
import datetime

from .htmlkit import note, num, table
from .load import Doc
from .plotting import figure, to_img

STRANDED = "#d62728"
COLOURS = {"pending": "#bbbbbb", "starting": "#e6ab02", "running": "#1b9e77"}


def _t(text: str | None) -> float | None:
    """Epoch seconds of an RFC 3339 time written by placebench (UTC with a Z), None for null."""
    if not text:
        return None
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def attempt_of(pod: dict, job: dict) -> dict:
    """The attempt a pod belongs to: the latest that began at or before its creation (the job itself without)."""
    created = _t(pod.get("created"))
    chosen = job
    for a in job.get("attempts") or []:
        start = _t(a.get("start"))
        if created is not None and start is not None and start <= created:
            chosen = a
    return chosen


def pod_segments(pod: dict, job: dict, end: float) -> list[tuple[str, float, float]]:
    """(kind, from, until) in epoch seconds for one pod's row."""
    created, scheduled = _t(pod.get("created")), _t(pod.get("scheduled"))
    released = _t(pod.get("gone")) or _t(pod.get("deleted")) or end
    ready = _t(pod.get("first_step")) or _t(pod.get("ready"))
    attempt = attempt_of(pod, job)
    full = _t(attempt.get("full_gang_at"))
    failure = _t(attempt.get("failure_at"))
    if failure is not None and failure < released:
        held = [h for h in attempt.get("held_after_failure") or [] if h.get("pod") == pod.get("name")]
        released = min(released, failure) if held else released
    else:
        held = []
    segs = []
    if created is None:
        return segs
    segs.append(("pending", created, scheduled if scheduled is not None else released))
    if scheduled is None:
        return segs
    wait_end = min(full, released) if full is not None else released
    if wait_end > scheduled:
        segs.append(("waiting", scheduled, wait_end))
    start = max(scheduled, wait_end)
    ready_at = min(ready, released) if ready is not None else released
    if ready_at > start:
        segs.append(("starting", start, ready_at))
    run_from = max(ready_at, start)
    if ready is not None and released > run_from:
        segs.append(("running", run_from, released))
    for h in held:
        segs.append(("held", _t(h["from"]), _t(h["until"])))
    return segs


def job_figure(job: dict, observed_until: float, name: str) -> str | None:
    pods = job.get("pods") or []
    zero = _t(job.get("first_created"))
    if not pods or zero is None:
        return None
    fig, ax = figure(9, 2.4 + 0.36 * len(pods))
    labelled = set()
    labels = {"pending": "pending (not bound)", "waiting": "bound, gang incomplete (stranded GPUs)",
              "starting": "bound, starting (image pull, start, rendezvous)", "running": "ready / working",
              "held": "held after a failure (stranded GPUs)"}
    xmax = observed_until - zero
    for i, pod in enumerate(pods):
        for kind, x0, x1 in pod_segments(pod, job, observed_until):
            label = labels[kind] if kind not in labelled else None
            labelled.add(kind)
            if kind in ("waiting", "held"):
                ax.barh(i, x1 - x0, left=x0 - zero, height=0.5, color=STRANDED, alpha=0.35, hatch="///", edgecolor=STRANDED,
                        label=label)
            else:
                ax.barh(i, x1 - x0, left=x0 - zero, height=0.5, color=COLOURS[kind], label=label)
            xmax = max(xmax, x1 - zero)
    for key, text, style in (("full_gang_at", "gang bound", "--"), ("all_ready_at", "all ready", ":"),
                             ("first_step_at", "first step", "-."), ("failure_at", "failure", "-"),
                             ("cleanup_done_at", "cleaned up", "-")):
        t = _t(job.get(key))
        if t is not None:  # in the legend, not as text: the marks are often seconds apart
            ax.axvline(t - zero, color=STRANDED if key in ("failure_at", "cleanup_done_at") else "black", linestyle=style,
                       linewidth=1, label=f"{text} (+{t - zero:.0f} s)")
    ax.set_yticks(range(len(pods)), [f"{p.get('name')} ({num(p.get('gpus'))} GPU) {p.get('node') or '-'}" for p in pods])
    ax.set_ylim(len(pods) - 0.4, -0.6)
    ax.set_xlim(0, xmax * 1.03 or 1)
    ax.set_xlabel("seconds since the job was created")
    ax.set_title(f"Admission of {job.get('namespace')}/{job.get('group')} ({job.get('scheduler')}, gang of "
                 f"{job.get('pod_count', job.get('min_member'))}, minimum {job.get('min_member')}; "
                 f"{len(job.get('attempts') or [])} attempt(s))\n"
                 f"stranded {job.get('stranded_gpu_s', 0) / 60:.1f} GPU-min, delay from {job.get('delay_stage') or '-'}")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=3, frameon=False)
    fig.tight_layout()
    ax.grid(axis="y", alpha=0)
    return to_img(fig, f"Admission Gantt chart of {job.get('group')} from {name}")


def admission_section(docs: list[Doc]) -> str:
    parts = []
    for d in docs:
        until = _t(d.data.get("observed_until")) or 0.0
        for job in d.data.get("jobs") or []:
            parts.append(table(["job", "scheduler", "gang", "to full gang (s)", "to all ready (s)", "stranded GPU-s",
                                "cleanup (s)", "restarts", "recreated", "delay stage"],
                               [[f"{job.get('namespace')}/{job.get('group')}", job.get("scheduler"),
                                 f"{job.get('pod_count', job.get('min_member'))} (min {job.get('min_member')})",
                                 num(job.get("time_to_full_gang_s")), num(job.get("time_to_all_ready_s")),
                                 num(job.get("stranded_gpu_s")), num(job.get("cleanup_s")),
                                 (job.get("retries") or {}).get("restarts"), (job.get("retries") or {}).get("recreated_pods"),
                                 job.get("delay_stage") or "-"]]))
            parts.append(job_figure(job, until, d.name) or note(f"{d.name}: {job.get('group')}: no pods to draw"))
        for w in d.data.get("warnings") or []:
            parts.append(note(f"{d.name}: warning: {w}"))
    return "".join(parts)
