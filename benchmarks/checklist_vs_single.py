"""Single question vs checklist on the same model, per dimension, cross-validated, each with
and without nearest labelled examples.

Two steps, so a long measurement can run in the background and be read while it runs:

    # judge items with both modes, appending one JSON line per item (resumable: items already
    # in OUT are skipped); --per-set N takes the first N items of each label alternately
    python benchmarks/checklist_vs_single.py collect OUT.jsonl [--per-set N] [--sets dev,shipped]
    # ... and with K nearest labelled examples too (four modes), drawn from the shipped sets
    # and the --examples-from files or folders (each item left out of its own examples)
    python benchmarks/checklist_vs_single.py collect OUT.jsonl --examples 3 \
        [--examples-from benchmarks/judge_dev] [--modes single,checklist,single_examples]
    # print the figures from whatever OUT holds
    python benchmarks/checklist_vs_single.py report OUT.jsonl

`collect` needs the embedded model (`local` extra); `--model scripted/PATH` runs it on a
scripted judge instead (no prefix evaluations are counted then), to check the path offline.
For each item it records the human label,
whether the engine settles it without the model (injection screen, decisive evidence), the
signals, the single question's P(pass), the checklist's answers and P(pass), tokens and
seconds per mode, and how many times the evidence prefix was evaluated (the local runtime's
prompt feeds are watched: a feed that re-evaluates any whole 64-token chunk of the prefix the
item's questions share counts as one prefix evaluation).

`report` prints per set and dimension, for each mode: plain kappa (5-fold cross-validated, the
fitted combination with the signals as `calibrate --fit` fits it), the coverage at decided
kappa >= 0.8 (the house rule: the 95% lower bound of the cross-validated decided kappa reaches
0.8, as `calibrate --fit` picks a band; and the point estimate >= 0.8), the median tokens and
seconds per item, prefix evaluations per item, and ranking AUCs: the model's own P(pass)
(single question; checklist uncombined), the signals alone (cross-validated logistic) and each
mode combined with the signals (cross-validated).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgrade.calibration import agreement as ag
from toolgrade.calibration.calibrate import (
    CalibrationError,
    CalibrationItem,
    ItemOutcome,
    fit_combined_threshold,
    load_set,
)
from toolgrade.calibration.combination_fit import FitRow, fit_with_cut, score_row
from toolgrade.calibration.records import MODEL_GAIN_MIN
from toolgrade.judging.checklist import load_checklist
from toolgrade.judging.settle import settle, signal_source, signals_for
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension, JudgeRequest, Verdict
from toolgrade.models.combination import MODEL_FEATURE

ROOT = Path(__file__).resolve().parents[1]
SETS = {"dev": ROOT / "benchmarks" / "judge_dev", "shipped": ROOT / "src" / "toolgrade" /
        "calibration_sets"}
CHUNK = 64
#: The modes a row may hold: (name in the row, checklist, with nearest examples).
MODES = (("single", False, False), ("checklist", True, False),
         ("single_examples", False, True), ("checklist_examples", True, True))


# -- collect ----------------------------------------------------------------------------------


class FeedWatch:
    """Records every prompt the local runtime evaluates: (tokens, tokens evaluated afresh)."""

    def __init__(self) -> None:
        self.feeds: list[tuple[list[int], int]] = []

    def install(self) -> None:
        from toolgrade.judging.local import runtime

        original = runtime.LlamaTokenModel.feed
        watch = self

        def feed(model: Any, tokens: list[int]) -> None:
            original(model, tokens)
            watch.feeds.append((list(tokens), model.last_feed[1]))

        runtime.LlamaTokenModel.feed = feed  # type: ignore[method-assign]

    def prefix_evaluations(self, start: int) -> int:
        """Feeds since `start` that evaluated a whole chunk of the prefix they share afresh."""
        feeds = self.feeds[start:]
        if not feeds:
            return 0
        shared = len(feeds[0][0])
        for tokens, _ in feeds[1:]:
            shared = min(shared, next((i for i, (a, b) in enumerate(
                zip(tokens, feeds[0][0], strict=False)) if a != b), min(len(tokens), shared)))
        whole = shared - shared % CHUNK
        return sum(1 for tokens, fresh in feeds if len(tokens) - fresh < whole) or 1


@dataclass(frozen=True)
class Examples:
    """The nearest labelled examples the example modes show: K and the extra sets."""

    k: int = 0
    extra: tuple[Path, ...] = ()


def _engine(dimension: JudgeDimension, checklist: bool, cache: Path, examples: int = 0,
            examples_from: Sequence[Path] = (), model: str | None = None) -> Any:
    from toolgrade.judging import build_judge
    from toolgrade.judging.local import LOCAL_MODEL
    from toolgrade.settings import DimensionSettings, JudgeSettings

    table = DimensionSettings(mode="logprob", threshold=0.5, checklist=bool(checklist),
                              examples=examples, examples_from=list(examples_from))
    engine = build_judge(JudgeSettings(model=model or LOCAL_MODEL, cache_dir=cache,
                                       dimensions={dimension: table}))
    assert engine is not None
    return engine


def _alternate(items: Sequence[CalibrationItem], n: int) -> list[CalibrationItem]:
    """The first `n` items taking pass and fail alternately (both labels in every prefix)."""
    passes = [i for i in items if i.label == "pass"]
    fails = [i for i in items if i.label != "pass"]
    out: list[CalibrationItem] = []
    while len(out) < n and (passes or fails):
        for group in (passes, fails):
            if group and len(out) < n:
                out.append(group.pop(0))
    return out


def _judge(engine: Any, dim: JudgeDimension, item: CalibrationItem, watch: FeedWatch
           ) -> tuple[Verdict, int, float, int, int]:
    before, start, feeds = engine.usage()[dim]["tokens"], time.perf_counter(), len(watch.feeds)
    # The item's id: an engine showing examples leaves the item out of its own (calibrate's
    # leave-one-out), wherever the pool holds it.
    verdict = engine.judge(JudgeRequest(dimension=dim, inputs=item.inputs, item_id=item.id))
    seconds = time.perf_counter() - start
    fresh = sum(evaluated for _, evaluated in watch.feeds[feeds:])
    return (verdict, engine.usage()[dim]["tokens"] - before, seconds,
            watch.prefix_evaluations(feeds), fresh)


def collect(out: Path, per_set: int, sets: list[str], cache: Path,
            examples: Examples = Examples(), model: str | None = None,
            only: Sequence[str] | None = None) -> None:
    """Judge the items with both modes (four with examples; `only` the ones named), one JSON
    line per item appended to `out`. `model` (a scripted judge, say) stands in for the
    embedded model."""
    done = set()
    if out.exists():
        lines = out.read_text().splitlines()
        done = {(r["set"], r["dimension"], r["id"]) for r in map(json.loads, lines)}
    watch = FeedWatch()
    if model is None:
        watch.install()
    queue = []
    for set_name in sets:
        for dim in JUDGE_DIMENSIONS:
            items = load_set(SETS[set_name] / f"{dim}.jsonl", dim).items
            queue.append((set_name, dim, _alternate(items, per_set)))
    modes = [m for m in MODES if (examples.k > 0 or not m[2]) and (only is None or m[0] in only)]
    engines = {(dim, name): _engine(dim, listed, cache, examples.k if shown else 0,
                                    examples.extra, model)
               for dim in JUDGE_DIMENSIONS for name, listed, shown in modes}
    # Round robin over the dimensions, so a partial run covers every dimension.
    longest = max(len(items) for _, _, items in queue)
    for k in range(longest):
        for set_name, dim, items in queue:
            if k >= len(items) or (set_name, dim, items[k].id) in done:
                continue
            item = items[k]
            row = {"set": set_name, "dimension": dim, "id": item.id, "label": item.label,
                   "bytes": len(json.dumps(item.inputs)),
                   "settled": settle(dim, item.inputs, "logprob") is not None,
                   "signals": signals_for(dim, item.inputs).values}
            if examples.k:
                row["examples"] = examples.k
            for name, _, _ in modes:
                verdict, tokens, seconds, prefixes, fresh = _judge(
                    engines[(dim, name)], dim, item, watch)
                row[name] = {"p_pass": verdict.p_pass if verdict.scored else None,
                             "answers": verdict.answers, "tokens": tokens,
                             "fresh_tokens": fresh,
                             "seconds": round(seconds, 3), "prefix_evaluations": prefixes,
                             "cached": verdict.cached, "settled": verdict.reason.startswith(
                                 "deterministic:")}
            with out.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            timing = " ".join(f"{name} {row[name]['seconds']:.1f}s" for name, _, _ in modes)
            print(f"{set_name} {dim} {item.id}: {timing}", flush=True)


# -- cost: tokens evaluated, from the tokenizer alone -----------------------------------------


def _fresh(previous: list[int], tokens: list[int]) -> int:
    """Tokens the runtime evaluates for `tokens` after `previous` (whole shared chunks kept)."""
    keep = 0
    limit = min(len(previous) - len(previous) % CHUNK, len(tokens) - 1)
    while keep < limit and previous[keep] == tokens[keep]:
        keep += 1
    return len(tokens) - (keep - keep % CHUNK)


def cost(sets: list[str]) -> None:
    """Per set and dimension: median prompt tokens evaluated afresh per item, single question
    vs checklist, replaying the runtime's chunk reuse over every item in order (no inference:
    the GGUF is loaded for its vocabulary only, so the figures do not depend on the load)."""
    import llama_cpp

    from toolgrade.judging.checklist import combined_hash
    from toolgrade.judging.local.files import ensure_model_file
    from toolgrade.judging.local.runtime import LlamaTokenModel
    from toolgrade.judging.prompts import content_token, load_template

    llama = llama_cpp.Llama(model_path=str(ensure_model_file()), vocab_only=True, verbose=False)
    tokens = LlamaTokenModel(llama)
    secret = b"benchmark"
    print("set      dimension                n  fresh tokens/item single  checklist  ratio  "
          "requests/item")
    for set_name in sets:
        for dim in JUDGE_DIMENSIONS:
            template, checklist = load_template(dim), load_checklist(dim)
            both = combined_hash(template.template_hash, checklist.checklist_hash)
            items = [i for i in load_set(SETS[set_name] / f"{dim}.jsonl", dim).items
                     if settle(dim, i.inputs, "logprob") is None]
            single_prev: list[int] = []
            list_prev: list[int] = []
            singles, lists = [], []
            for item in items:
                token = content_token(secret, template.template_hash, "logprob", item.inputs)
                prompt = template.render(item.inputs, answer_mode="logprob", token=token)
                ids = tokens.prompt_tokens(prompt.messages())
                singles.append(_fresh(single_prev, ids))
                single_prev = ids
                spent = 0
                for order in checklist.orders(item.inputs):
                    order_token = content_token(secret, both, "checklist", order)
                    for question in checklist.model_questions:
                        asked = checklist.prompt(template, order, order_token, question)
                        ids = tokens.prompt_tokens(asked.messages())
                        spent += _fresh(list_prev, ids)
                        list_prev = ids
                lists.append(spent)
            if not items:
                continue
            requests = len(checklist.model_questions) * len(checklist.orders(items[0].inputs))
            s, c = statistics.median(singles), statistics.median(lists)
            print(f"{set_name:8} {dim:22} {len(items):3}  {s:22.0f} {c:10.0f} {c / s:6.2f}  "
                  f"{requests:5}")


# -- neighbours: what the nearest examples carry, without the model -------------------------


def neighbours(sets: list[str], k: int) -> None:
    """Per set and dimension, with each item left out of its own examples: how often its
    nearest example has its label, the ranking AUC of the pass share among its `k` nearest (a
    BM25 k-nearest-neighbour judge, no model), and the median characters the `k` examples add
    to the user message. Pools: the shipped set alone, and the shipped set with judge_dev (a
    team's labelled items standing in)."""
    from toolgrade.judging.examples import ExamplePool, WithExamples, load_layout
    from toolgrade.judging.prompts import load_template

    layout = load_layout()
    print(f"set      dimension               n  pool          1-NN same label  AUC {k}-NN  "
          "chars item  +examples")
    for set_name in sets:
        for dim in JUDGE_DIMENSIONS:
            shipped = load_set(None, dim)
            dev = load_set(SETS["dev"] / f"{dim}.jsonl", dim)
            items = (dev if set_name == "dev" else shipped).items
            template = load_template(dim)
            for pool_name, pool_sets in (("shipped", [shipped]), ("shipped+dev", [shipped, dev])):
                pool = ExamplePool(dim, pool_sets)
                labels = [i.label == "pass" for i in items]
                near = [pool.nearest(i.inputs, k, leave_out=i.id) for i in items]
                same = [bool(n) and n[0].label == i.label for i, n in zip(items, near, strict=True)]
                share = [sum(e.label == "pass" for e in n) / max(1, len(n)) for n in near]
                plain = [len(template.render(i.inputs, token="0000").user) for i in items]
                shown = [len(WithExamples(template, layout, n, "-").render(
                    i.inputs, token="0000").user) for i, n in zip(items, near, strict=True)]
                extra = statistics.median(s - p for s, p in zip(shown, plain, strict=True))
                print(f"{set_name:8} {dim:22} {len(items):3}  {pool_name:12}  "
                      f"{sum(same) / len(same):15.2f}  {_fmt(auc(share, labels)):>8}  "
                      f"{statistics.median(plain):10.0f}  {extra:9.0f}")


# -- report -----------------------------------------------------------------------------------


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """P(a random pass item scores above a random fail item), ties half."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _oof_scores(rows: list[FitRow], features: list[str], folds: int) -> list[float]:
    """Out-of-fold combined P(pass) of every row."""
    labels = [r.human_pass for r in rows]
    scores = [0.0] * len(rows)
    for fold in ag.stratified_folds(labels, folds, ag.BOOTSTRAP_SEED):
        held = set(fold)
        combination, _, _ = fit_with_cut([r for i, r in enumerate(rows) if i not in held],
                                         features)
        for i in fold:
            scores[i] = score_row(combination, rows[i])
    return scores


def _outcomes(rows: list[dict[str, Any]], mode: str) -> list[ItemOutcome]:
    """The rows as calibrate's outcomes; inputs hold only the id (signals come from the row)."""
    out = []
    for r in rows:
        item = CalibrationItem(id=r["id"], inputs={"id": r["id"]}, label=r["label"])
        m = r[mode]
        verdict = (Verdict(verdict="pass", p_pass=m["p_pass"], answers=m["answers"])
                   if m["p_pass"] is not None else Verdict.unscored("none"))
        out.append(ItemOutcome(item, [verdict]))
    return out


def _fmt(value: float | None, digits: int = 2) -> str:
    return "  -  " if value is None else f"{value:.{digits}f}"


def mode_figures(rows: list[dict[str, Any]], dim: JudgeDimension, mode: str) -> dict[str, Any]:
    """Cross-validated figures of one mode on one set's items of `dim`."""
    by_id = {r["id"]: r for r in rows}
    source = signal_source(dim)

    labels = [r["label"] == "pass" for r in rows]
    figures: dict[str, Any] = {"n": len(rows)}
    try:
        stored = type(source)(
            signals=lambda inputs: by_id[str(inputs["id"])]["signals"],
            settled=lambda inputs: by_id[str(inputs["id"])]["settled"])
        fit = fit_combined_threshold(_outcomes(rows, mode), stored)
        figures["kappa"] = fit.cv_kappa
        band = fit.band
        figures["coverage_bound"] = band.cv_coverage if band else None
        figures["coverage_point"] = max(
            (lv.cv_coverage for lv in (band.levels if band else [])
             if lv.cv_decided_kappa is not None and lv.cv_decided_kappa >= 0.8), default=0.0)
        fit_rows = [FitRow(r[mode]["p_pass"] or 0.5,
                           {**r["signals"], **(r[mode]["answers"] or {})},
                           r["label"] == "pass", r["settled"]) for r in rows]
        features = [MODEL_FEATURE, *sorted({k for fr in fit_rows for k in fr.signals})]
        folds = min(5, sum(labels), len(labels) - sum(labels))
        figures["auc_combined"] = auc(_oof_scores(fit_rows, features, folds), labels)
        sig = [f for f in features if f != MODEL_FEATURE and not f.startswith("q_")]
        if sig:
            signal_rows = [FitRow(0.5, r.signals, r.human_pass, r.settled) for r in fit_rows]
            figures["auc_signals"] = auc(_oof_scores(signal_rows, sig, folds), labels)
    except (CalibrationError, ValueError) as exc:
        figures["error"] = str(exc)[:80]
    model_rows = [(r[mode]["p_pass"], r["label"] == "pass") for r in rows
                  if not r["settled"] and r[mode]["p_pass"] is not None]
    figures["auc_model"] = auc([p for p, _ in model_rows], [y for _, y in model_rows])
    asked = [r[mode] for r in rows if not r[mode]["settled"]]
    figures["tokens"] = statistics.median(a["tokens"] for a in asked) if asked else None
    fresh = [a for a in asked if not a["cached"]]
    figures["seconds"] = statistics.median(a["seconds"] for a in fresh) if fresh else None
    figures["prefixes"] = (statistics.mean(a["prefix_evaluations"] for a in fresh)
                           if fresh else None)
    evaluated = [a["fresh_tokens"] for a in fresh if "fresh_tokens" in a]
    figures["fresh_tokens"] = statistics.median(evaluated) if evaluated else None
    return figures


def report(path: Path) -> None:
    """Print the figures of every set and dimension in `path`."""
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    print("set      dimension               n  mode               kappa cov>=.8(lo/pt) tok  "
          "fresh s/item prefix  AUC model sig  combined")
    figures: dict[tuple[str, JudgeDimension], list[dict[str, Any]]] = {}
    for set_name in SETS:
        for dim in JUDGE_DIMENSIONS:
            these = [r for r in rows if r["set"] == set_name and r["dimension"] == dim]
            if not these:
                continue
            # Rows collected without --examples hold the first two modes only; a mode
            # collected on some items (--modes) is read on those (its n says how many).
            for mode in [name for name, _, _ in MODES if any(name in r for r in these)]:
                f = mode_figures([r for r in these if mode in r], dim, mode)
                figures.setdefault((set_name, dim), []).append(f)
                shown = mode.replace("_", "+")
                print(f"{set_name:8} {dim:22} {f['n']:3}  {shown:18} {_fmt(f.get('kappa')):>6} "
                      f"{_fmt(f.get('coverage_bound'))}/{_fmt(f.get('coverage_point'))}      "
                      f"{_fmt(f['tokens'], 0):>5} {_fmt(f['fresh_tokens'], 0):>5} "
                      f"{_fmt(f['seconds'], 1):>6} "
                      f"{_fmt(f['prefixes'], 2):>6}  {_fmt(f['auc_model']):>5} "
                      f"{_fmt(f.get('auc_signals')):>5} {_fmt(f.get('auc_combined')):>5}"
                      + (f"  ({f['error']})" if "error" in f else ""))
    asked = [r for r in rows if "checklist" in r and 2000 <= r["bytes"] <= 6000
             and not r["checklist"]["settled"] and not r["checklist"]["cached"]]
    secs = [r["checklist"]["seconds"] for r in asked]
    if secs:
        print(f"checklist median seconds per 2-6 kB item: {statistics.median(secs):.1f} "
              f"({len(secs)} items)")
    default_judges(figures)


def default_judges(figures: dict[tuple[str, JudgeDimension], list[dict[str, Any]]]) -> None:
    """Per set and dimension (each mode's `mode_figures`, single question first), the judge the
    issue's rule picks: the signals alone where the best mode's cross-validated AUC combined
    with the signals beats theirs by < 0.05 (`calibration.records.MODEL_GAIN_MIN`, the rule
    `run`'s defaults follow)."""
    for (set_name, dim), modes in figures.items():
        signals = modes[0].get("auc_signals")
        if signals is None:
            continue
        # Only modes measured on the same items as the signals' figure are compared with it.
        gain = max((f.get("auc_combined") or 0.0) for f in modes
                   if f["n"] == modes[0]["n"]) - signals
        judge = "signals alone" if gain < MODEL_GAIN_MIN else "the model"
        print(f"{set_name:8} {dim:22} judged by {judge} by default (the model adds "
              f"{gain:+.2f} AUC over the signals)")


def main(argv: list[str] | None = None) -> int:
    """Collect or report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("collect", "report", "cost", "neighbours"))
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-set", type=int, default=1000)
    parser.add_argument("--sets", default="dev,shipped")
    parser.add_argument("--cache", type=Path, default=Path(".checklist-bench-cache"))
    parser.add_argument("--examples", type=int, default=0,
                        help="K > 0: also judge with K nearest labelled examples (four modes)")
    parser.add_argument("--examples-from", type=Path, action="append", default=[],
                        help="an extra labelled set, or a folder of DIMENSION.jsonl sets")
    parser.add_argument("--modes", default=None,
                        help="collect only these modes, comma-separated (single, checklist, "
                        "single_examples, checklist_examples)")
    parser.add_argument("--model", default=None,
                        help="a judge model instead of the embedded one (scripted/PATH: offline)")
    args = parser.parse_args(argv)
    if args.step == "collect":
        for dim in JUDGE_DIMENSIONS:
            load_checklist(dim)  # a broken checklist stops before the model loads
        collect(args.out, args.per_set, args.sets.split(","), args.cache,
                Examples(args.examples, tuple(args.examples_from)), args.model,
                args.modes.split(",") if args.modes else None)
    elif args.step == "cost":
        cost(args.sets.split(","))
    elif args.step == "neighbours":
        neighbours(args.sets.split(","), args.examples or 3)
    else:
        report(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
