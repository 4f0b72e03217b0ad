"""Assembles the report: one HTML document with inline CSS and embedded images, no external resource.
Sections appear only for the kinds of results given; each says where its numbers come from."""
import datetime
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

from . import (
    context,
    doc_tables,
    fig_admission,
    fig_collectives,
    fig_decisions,
    fig_forest,
    fig_gang,
    fig_interference,
    fig_pace,
    fig_pipeline,
    fig_staging,
    fig_steps,
    first_screen,
    history,
    interference,
    overview,
    roles,
    verdicts,
)
from .htmlkit import GENERATOR, badge, esc, note, num, section, table
from .load import DOC_KINDS, Doc, InputProblem, Inputs, Run

T = TypeVar("T")

# What a value of an unexpected type raises while a section is drawn (load.py checks the types of the
# fields it knows are read; this names the file of anything it missed, in one line).
DRAWING_ERRORS = (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError, OverflowError)


def drawn_from(paths: Sequence[str], build: Callable[..., T], *args: object) -> T:
    """build(*args), with a drawing error turned into InputProblem naming the input files."""
    try:
        return build(*args)
    except DRAWING_ERRORS as e:
        why = (str(e).strip().splitlines() or [""])[0][:160]
        raise InputProblem(f"{', '.join(paths)}: cannot draw the report from it ({type(e).__name__}: {why}); a field "
                           "holds a value of another type than placebench writes: restore the file, or write it "
                           "again with placebench") from None

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:16px 24px 48px;background:#fff}
h1{font-size:1.5em;margin:.4em 0}h2{border-bottom:2px solid #ddd;padding-bottom:4px;margin-top:1.6em}
h3{margin-top:1.2em}h4{margin:1em 0 .3em}
table{border-collapse:collapse;margin:6px 0 12px;font-size:.86em}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f0f0f0}table.kv td:first-child{font-weight:600;white-space:nowrap;background:#f7f7f7}
table.kv thead{display:none}table.compact td{padding:1px 6px}
img.fig{max-width:100%;height:auto;display:block;margin:8px 0}
.note{color:#555;font-size:.86em;margin:4px 0}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:.85em;color:#fff;background:#6b6b6b}
.badge.ok,.badge.faster{background:#137a5c}.badge.bad,.badge.slower{background:#b54f00}
.badge.warn,.badge.inconclusive{background:#6b6b6b}.badge.equivalent{background:#1f78b4}.badge.baseline{background:#333}
.badge.control,.badge.unrealised{color:#222;background:repeating-linear-gradient(45deg,#ddd 0 4px,#bbb 4px 8px)}
.note.warn{color:#8a3b00}ul.warnings{font-size:.86em;color:#8a3b00;margin:4px 0 12px}
table.summary td{vertical-align:middle}
nav ul{columns:2;font-size:.9em}code{background:#f2f2f2;padding:0 3px}
details{margin:6px 0}summary{cursor:pointer;color:#345}
"""

# Marks the page with how many images decoded, for the headless-browser test (tests/report/).
SELF_CHECK = """<script>
window.addEventListener("load", function () {
  var imgs = document.images, broken = 0;
  for (var i = 0; i < imgs.length; i++) if (!imgs[i].complete || imgs[i].naturalWidth === 0) broken++;
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-images-broken", String(broken));
});
</script>"""


# Runs whose figures are drawn (about 0.2 s of CPU each): a page of more runs draws the first ones and gives
# the others their tables only (docs/performance.md, "Report loader"), so 2000 runs take seconds, not minutes.
MAX_DRAWN_RUNS = 12


def class_block(run: Run, cls: dict, cfg_by_name: dict, draw: bool = True, decide: Sequence[Doc] = ()) -> str:
    name = cls.get("name")
    cfg = cfg_by_name.get(name, {})
    arms_cfg = cfg.get("arms", {})
    arm_order = [arms_cfg.get("baseline")] + list(arms_cfg.get("compare", [])) if arms_cfg else []
    workload = (cfg.get("workload") or {}).get("type", "?")
    arm_roles = {arm: r for (c, arm), r in roles.of_run(run).items() if c == name}
    role_names = {arm: r.name for arm, r in arm_roles.items()}
    parts = []
    if cls.get("arms"):
        parts += [verdicts.class_heading_note(cls, workload), verdicts.noise_floor_note(cls),
                  verdicts.class_warnings(cls), verdicts.verdict_table(cls, arm_roles)]
    else:
        why = " (no summary.json)" if run.summary is None else ""
        parts.append(note(f"workload {workload}, baseline {cls.get('baseline')}: no verdicts{why}"))
    trials, loads = run.trials, ""
    if interference.has_conditions(cls):
        # The verdicts above and the figures below are the class's first condition's (quiet); every
        # condition is in the Interference block after them.
        rec = overview.recommendation_for(list(decide), run.name, name)
        loads = fig_interference.section(run.trials, cls, role_names, rec[1] if rec else None, draw)
        trials = [t for t in run.trials if t.get("condition") in (None, cls.get("condition"))]
        parts.append(note(f"Verdicts and figures of condition {cls.get('condition')}, the class's first; every "
                          "condition is under Interference below."))
    if draw:
        img = fig_steps.distribution_figure(trials, name, arm_order, cls.get("statistic"), role_names)
        if img:
            parts.append(img)
    if draw and workload == "pipeline":
        rows = fig_pipeline.split_from_trials(trials, name, arm_order, role_names)
        img = fig_pipeline.pipeline_figure(rows, name)
        if img:
            parts.append(img)
            parts.append(note(fig_pipeline.split_note(rows)))
    return f'<h3 id="{esc(run.name)}-{esc(name)}">Class {esc(name)}</h3>' + "".join(parts) + loads


def run_section(run: Run, idx: int, decide: Sequence[Doc] = ()) -> str:
    cfg_by_name = {c.get("name"): c for c in run.config_classes()}
    draw = idx < MAX_DRAWN_RUNS
    parts = ["<h3>Context</h3>", context.run_context_section(run)]
    if not draw:
        parts.append(note(f"Figures are drawn for the first {MAX_DRAWN_RUNS} runs of a report only; give this run "
                          "alone (or fewer runs) for its figures."))
    if run.summary is None:
        parts.append(note("No summary.json: the distributions below are shown without ratios or verdicts."))
    elif not draw:
        pass
    else:
        img = fig_forest.forest_figure([run])
        if img:
            parts += ["<h3>Ratios against the baseline, all classes</h3>", img,
                      note("Verdicts (docs/statistics.md): faster or slower when the CI lies beyond the margin, "
                           "equivalent when it lies inside it, inconclusive otherwise; each CI is at its look's "
                           "confidence (the sequential plan over looks and classes). Grey, hatched: an A/A control "
                           "or an unrealised arm, not a comparison.")]
    classes = run.classes() or [{"name": c.get("name"), "arms": [], "baseline": (c.get("arms") or {}).get("baseline")}
                                for c in run.config_classes()]
    for cls in classes:
        parts.append(class_block(run, cls, cfg_by_name, draw, decide))
    return section(f"run-{idx}", f"Run {run.name}", "".join(parts))


def build_page(inputs: Inputs, title: str | None = None) -> str:
    title = title or ("placebench report: " + ", ".join(r.name for r in inputs.runs) if inputs.runs else "placebench report")
    body, toc = [], []

    def add(anchor: str, heading: str, html: str) -> None:
        toc.append(f'<li><a href="#{esc(anchor)}">{esc(heading)}</a></li>')
        body.append(section(anchor, heading, html))

    said = drawn_from([d.path for d in inputs.history], history.sentence, inputs.history)
    if inputs.runs:
        sources = [os.path.join(r.path, "summary.json") if r.summary is not None else r.path for r in inputs.runs]
        add("summary", "Summary", drawn_from(sources + [d.path for d in inputs.decide + inputs.history],
                                             overview.summary_section, inputs, [said] if said else []))
    elif said:
        add("summary", "Summary", first_screen.sentences_html([said]))
    for i, run in enumerate(inputs.runs):
        toc.append(f'<li><a href="#run-{i}">Run {esc(run.name)}</a></li>')
        body.append(drawn_from([run.path], run_section, run, i, inputs.decide))
    if len(inputs.runs) > 1 and any(r.summary for r in inputs.runs):
        runs = [r for r in inputs.runs if r.summary][:MAX_DRAWN_RUNS]
        img = drawn_from([os.path.join(r.path, "summary.json") for r in runs], fig_forest.forest_figure, runs)
        if img:
            add("forest-all", "Ratios of every run", img)
    for kind in DOC_KINDS:
        docs = getattr(inputs, kind)
        if docs:
            drawn_from([d.path for d in docs], add_doc_sections, kind, docs, add)
    return page_html(inputs, title, toc, body)


def add_doc_sections(kind: str, docs: list[Doc], add: Callable[[str, str, str], None]) -> None:
    """The section of result files of one kind (pipeline, staging, collective, gang or decide)."""
    if kind == "pipeline":
        rows = fig_pipeline.split_from_docs(docs)
        img = fig_pipeline.pipeline_figure(rows, "pipeline files")
        files = table(["file", "arm", "backend", "status", "throughput (samples/s)", "input bound", "bottleneck"],
                      [[d.name, (d.data.get("config") or {}).get("arm"), d.data.get("backend"), d.data.get("status"),
                        num((d.data.get("summary") or {}).get("throughput_samples_s")),
                        f"{num((d.data.get('summary') or {}).get('input_bound_pct'), 3)}% "
                        f"({(d.data.get('summary') or {}).get('input_bound_class', '?')})",
                        ((d.data.get("summary") or {}).get("stage_rates") or {}).get("bottleneck", "-")]
                       for d in docs])
        add("pipeline", "Pipeline runs", (img + note(fig_pipeline.split_note(rows)) if img else note("no steps in these files"))
            + files)
    elif kind == "staging":
        img = fig_staging.staging_figure(docs)
        srcs = note("From " + ", ".join(f"{d.name} ({d.data.get('backend')}: {d.data.get('backend_reason', '')})"
                                        for d in docs))
        add("staging", "Staging bandwidth", (img or note("no rows")) + srcs)
    elif kind == "collective":
        img = fig_collectives.collectives_figure(docs)
        wrong = sum(d.data.get("wrong_total", 0) or 0 for d in docs)
        add("collectives", "Collectives", (img or note("no rows with busbw")) +
            note(f"From {', '.join(d.name for d in docs)}; wrong results in total: {wrong}.") +
            "".join(fig_pace.pace_figures(docs)))
    elif kind == "gang":
        parts = []
        for d in docs:
            img = fig_gang.gang_figure(d)
            g = d.data
            parts.append(table(["outcome", "ranks", "group ready (s)", "first step (s)", "stranded GPU-s", "cleanup (s)",
                                "retries", "bound (s)"],
                               [[badge(g.get("outcome"), "ok" if g.get("outcome") == "complete" else "bad"),
                                 g.get("nranks", len(g.get("ranks", []))), num(g.get("group_ready_s")),
                                 num(g.get("time_to_first_step_s")), num(g.get("stranded_gpu_s")), num(g.get("cleanup_s")),
                                 g.get("retries"), num(g.get("bound_s"))]]))
            parts.append(img or note(f"{d.name}: no rank timelines"))
            parts.extend(fig_pace.pace_figures([d]))
        total = sum(d.data.get("stranded_gpu_s", 0) or 0 for d in docs)
        parts.append(note(f"Stranded GPU-seconds over these gang runs: {total:.2f} "
                          "(internal accounting; see placebench cost)."))
        add("gang", "Gang runs", "".join(parts))
    elif kind == "admission":
        add("admission", "Admission timelines", fig_admission.admission_section(docs))
    elif kind == "history":
        add("history", "History", history.section(docs))
    elif kind in ("queue", "feasible", "fleet"):
        heading, html = doc_tables.section(kind, docs)
        add(kind, heading, html)
    else:
        add("decisions", "Decisions", "".join(fig_decisions.decisions_section(d) for d in docs))


def page_html(inputs: Inputs, title: str, toc: list[str], body: list[str]) -> str:
    absent = [k for k, v in (("runs", inputs.runs), ("pipeline files", inputs.pipeline), ("staging", inputs.staging),
                             ("collectives", inputs.collective), ("gang", inputs.gang), ("decisions", inputs.decide),
                             ("admission", inputs.admission), ("queue replays", inputs.queue),
                             ("feasibility", inputs.feasible), ("fleet", inputs.fleet), ("history", inputs.history))
              if not v]
    generated = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = (f"<h1>{esc(title)}</h1>" + note(f"Generated {generated} by scripts/report.py from "
                                              f"{len(inputs.runs)} run(s) and "
                                              f"{len(inputs.docs())} "
                                              "result file(s).")
              + (note("Not in these inputs: " + ", ".join(absent) + ".") if absent else "")
              + "".join(note("warning: " + w) for w in inputs.warnings)
              + f"<nav><ul>{''.join(toc)}</ul></nav>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">" + GENERATOR +
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{esc(title)}</title>"
            f"<style>{CSS}</style></head><body><main>{header}{''.join(body)}</main>{SELF_CHECK}</body></html>\n")
