"""scripts/report.py on every field of the committed result fixtures damaged in turn (to a string, to null, to
a list): each input is either read (exit 0) or refused in one line (exit 2), never a traceback.
Run: .venv/bin/python tests/report/test_report_damage.py"""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import v2_copy  # noqa: E402
from test_report import DOCS, FIX, REPORT, ROOT, read, report  # noqa: E402,F401


def field_paths(obj, path=()):
    """Every key path of `obj`: each map key and each list item."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        yield path + (k,)
        yield from field_paths(v, path + (k,))


def normalized(path):
    """The path with every list index as 0: the same field of every item of a list."""
    return tuple(0 if isinstance(k, int) else k for k in path)


def with_value(obj, path, value):
    obj = json.loads(json.dumps(obj))
    holder = obj
    for k in path[:-1]:
        holder = holder[k]
    holder[path[-1]] = value
    return obj


class ReadKeys:
    """Which keys of each input file the report reads (list items counted as item 0): the loader's JSON
    objects are replaced by dicts that log every key looked up, and iterating one logs all its keys."""

    def __init__(self, load_module):
        self.load = load_module
        self.log = set()
        self.roots = {}  # file name -> what the loader read (a trials.jsonl: its list of lines)
        log = self.log

        class Logged(dict):
            def __getitem__(self, k):
                log.add((id(self), k))
                return super().__getitem__(k)

            def get(self, k, default=None):
                log.add((id(self), k))
                return super().get(k, default)

            def __contains__(self, k):
                log.add((id(self), k))
                return super().__contains__(k)

            def everything(self):
                log.update((id(self), k) for k in dict.keys(self))

            def __iter__(self):
                self.everything()
                return super().__iter__()

            def keys(self):
                self.everything()
                return super().keys()

            def items(self):
                self.everything()
                return super().items()

            def values(self):
                self.everything()
                return super().values()

        self.Logged = Logged

    def __enter__(self):
        load, roots, logged = self.load, self.roots, self.Logged
        self.saved = (load.json, load.read_json, load.read_trials)
        real_json, read_json, read_trials = self.saved

        class JsonLogged:
            JSONDecodeError = real_json.JSONDecodeError

            @staticmethod
            def loads(text):
                return real_json.loads(text, object_hook=logged)

        def logged_read_json(path):
            roots[os.path.basename(path)] = obj = read_json(path)
            return obj

        def logged_read_trials(path, warnings):
            roots[os.path.basename(path)] = trials = read_trials(path, warnings)
            return trials

        load.json, load.read_json, load.read_trials = JsonLogged, logged_read_json, logged_read_trials
        return self

    def __exit__(self, *exc):
        self.load.json, self.load.read_json, self.load.read_trials = self.saved

    def read_paths(self, file):
        """Key paths of `file` the report read: a trials.jsonl's over all its lines."""
        where = {}

        def walk(obj, path):
            if isinstance(obj, dict):
                where[id(obj)] = path
                for k, v in dict.items(obj):
                    walk(v, path + (k,))
            elif isinstance(obj, list):
                for v in obj:
                    walk(v, path + (0,))

        root = self.roots[file]
        for item in (root if file == "trials.jsonl" else [root]):
            walk(item, ())
        return {where[i] + (k,) for i, k in self.log if i in where}


def is_read(path, read):
    """A field is read when every key on its way is (a list item is read with its list)."""
    return all(path[: i + 1] in read for i, k in enumerate(path) if not isinstance(k, int))


class EveryFieldDamaged(unittest.TestCase):
    """Every field of every fixture (a run's run.json, summary.json and first trial line of each class;
    each result file) set to a string, to null and to a list: the report is written (exit 0) or the input
    is refused in exactly one line (exit 2), never a traceback. In-process, with the figures built but
    not rasterised (to_img stubbed). A field the report never reads (ReadKeys, on the intact fixture)
    cannot change what it does, and the same field of another list item, or of the other run directory,
    runs the same code: each such field is damaged once. The real script runs the cases that used to end
    in tracebacks."""

    DOCS = DOCS
    RUNS = ("tiny-run", "mixed-run")
    VALUES = ("x", None, ["x"])

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        from placebench_report import (fig_collectives, fig_decisions, fig_forest, fig_gang, fig_pipeline,
                                       fig_staging, fig_steps, load)
        from placebench_report.main import main
        from placebench_report.plotting import plt

        def no_raster(fig, alt):
            plt.close(fig)
            return '<img class="fig" alt="">'

        cls.main, cls.load = staticmethod(main), load
        cls.patched = [(m, m.to_img) for m in (fig_collectives, fig_decisions, fig_forest, fig_gang, fig_pipeline,
                                                fig_staging, fig_steps)]
        for m, _ in cls.patched:
            m.to_img = no_raster
        cls.tmp = tempfile.mkdtemp(prefix="pb-report-fields-")

    @classmethod
    def tearDownClass(cls):
        for m, f in cls.patched:
            m.to_img = f
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_report(self, path):
        """(exit status, stderr) of main() on `path`; an exception escaping main is a failure (a traceback)."""
        import contextlib
        import io
        import traceback
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = self.main([path, "-o", os.path.join(self.tmp, "out.html")])
        except SystemExit as e:
            rc = e.code
        except Exception:  # noqa: BLE001 - what the command line would print as a traceback
            return None, traceback.format_exc()
        return rc, err.getvalue()

    def check_all(self, original, write, file, where, tested):
        """Damages each field of `original` the report reads whose (file, field) is not in `tested` yet."""
        with ReadKeys(self.load) as keys:
            rc, err = self.run_report(write(original))
        self.assertEqual(rc, 0, err)
        read = keys.read_paths(file)
        bad = []
        for path in field_paths(original):
            field = (file, normalized(path))
            if not is_read(normalized(path), read) or field in tested:
                continue
            tested.add(field)
            for value in self.VALUES:
                rc, err = self.run_report(write(with_value(original, path, value)))
                lines = err.strip().splitlines()
                if not (rc == 0 or (rc == 2 and len(lines) == 1 and "Traceback" not in err)):
                    key = ".".join(str(k) for k in path)
                    bad.append(f"{where} {key} = {value!r}: exit {rc}: {err.strip()[-600:]}")
        self.assertEqual(bad, [], f"{len(bad)} damaged inputs not refused in one line:\n" + "\n".join(bad[:20]))

    def test_result_files(self):
        for name in self.DOCS:
            with self.subTest(name):
                with open(os.path.join(FIX, name), encoding="utf-8") as f:
                    original = json.load(f)
                target = os.path.join(self.tmp, name)

                def write(obj, target=target):
                    with open(target, "w", encoding="utf-8") as f:
                        json.dump(obj, f)
                    return target

                tested = set()
                self.check_all(original, write, name, name, tested)
                self.assertTrue(tested, name)

    def test_run_directories(self):
        tested = set()
        originals = os.path.join(self.tmp, "originals")
        os.makedirs(originals, exist_ok=True)
        for name in self.RUNS:
            source = v2_copy(name, originals)  # at results schema 2
            run = os.path.join(self.tmp, name)
            shutil.copytree(source, run)
            for file in ("run.json", "summary.json", "trials.jsonl"):
                with open(os.path.join(source, file), encoding="utf-8") as f:
                    text = f.read()
                if file != "trials.jsonl":
                    parts = [(None, text)]
                else:  # the first line of each class
                    lines = text.splitlines()
                    firsts = {}
                    for i, line in enumerate(lines):
                        firsts.setdefault(json.loads(line)["class"], i)
                    parts = [(i, lines[i]) for i in firsts.values()]
                for index, part in parts:
                    with self.subTest(f"{name}/{file}", line=index):
                        original = json.loads(part)

                        def write(obj, file=file, index=index, text=text, run=run):
                            if index is None:
                                out = json.dumps(obj)
                            else:
                                lines = text.splitlines()
                                lines[index] = json.dumps(obj)
                                out = "\n".join(lines) + "\n"
                            with open(os.path.join(run, file), "w", encoding="utf-8") as f:
                                f.write(out)
                            return run

                        self.check_all(original, write, file, f"{name}/{file}", tested)
                        write(original)
        self.assertEqual({f for f, _ in tested}, {"run.json", "summary.json", "trials.jsonl"})

    def test_cases_that_printed_tracebacks(self):
        """The real script, as the audit ran it."""
        run = os.path.join(self.tmp, "tiny-dir")
        shutil.move(v2_copy("tiny-run", tempfile.mkdtemp(dir=self.tmp)), run)
        os.remove(os.path.join(run, "trials.jsonl"))
        os.mkdir(os.path.join(run, "trials.jsonl"))
        gang = os.path.join(self.tmp, "gang.json")
        with open(os.path.join(FIX, "gang-missing.json"), encoding="utf-8") as f:
            g = json.load(f)
        with open(gang, "w", encoding="utf-8") as f:
            json.dump(dict(g, stranded_gpu_s="x"), f)
        rounds = os.path.join(self.tmp, "tiny-round")
        shutil.move(v2_copy("tiny-run", tempfile.mkdtemp(dir=self.tmp)), rounds)
        with open(os.path.join(rounds, "trials.jsonl"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        lines[1] = json.dumps(dict(json.loads(lines[1]), round="x"))
        with open(os.path.join(rounds, "trials.jsonl"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        for target, needle in ((run, "trials.jsonl: a directory"), (gang, "gang.json: stranded_gpu_s: expected a number"),
                               (rounds, "trials.jsonl:2: round: expected a whole number")):
            r = report([target], os.path.join(self.tmp, "r.html"))
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(needle, r.stderr)


if __name__ == "__main__":
    unittest.main()
