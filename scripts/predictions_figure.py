"""docs/predictions.md, generated from dashboard/data/measured_runs.json: each measured run beside the
speedup specmath.predict_speedup gives it, the errors overall and per source, and the parts of one
iteration the model priced, so that a reader sees which side is off.

    .venv/bin/python scripts/predictions_figure.py          # print it
    .venv/bin/python scripts/predictions_figure.py --write  # write docs/predictions.md
    .venv/bin/python scripts/predictions_figure.py --png    # and docs/screenshots/predictions.png (the page)

``tests/dashboard/test_docs.py`` checks that the file holds exactly what this prints. The PNG is taken
by scripts/screenshots.py (the app in Chromium), so ``--png`` needs what ``make screenshots`` needs.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit  # noqa: E402, F401  (its loggers first, then this one quieted)

# Outside `streamlit run` every st.cache_data decorator warns that it caches in memory: true here, and noise.
logging.getLogger("streamlit.runtime.caching.cache_data_api").setLevel(logging.ERROR)

from dashboard import texts  # noqa: E402
from dashboard.features import predictions  # noqa: E402
from dashboard.measured import DATA_FILE, load_measured_runs  # noqa: E402
from specmath.predict import FITTED_OVERHEADS, Overheads, predict  # noqa: E402

DOC = ROOT / "docs" / "predictions.md"
PNG = ROOT / "docs" / "screenshots" / "predictions.png"


def _cell(value: object) -> str:
    """A table cell: pipes escaped, line breaks as spaces."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(rows: Sequence[dict]) -> list[str]:
    """``rows`` (dicts with the same keys) as a Markdown table's lines."""
    if not rows:
        return ["(none)"]
    keys = list(rows[0])
    lines = ["| " + " | ".join(_cell(key) for key in keys) + " |", "|" + "---|" * len(keys)]
    return lines + ["| " + " | ".join(_cell(row[key]) for key in keys) + " |" for row in rows]


def iteration_rows(comparison: predictions.Comparison) -> list[dict]:
    """Per run, one iteration's time in plain steps T_target(1): as priced, its drafting and verify shares,
    and what the measurement implies (accept length / measured speedup)."""
    rows = []
    for p in comparison.priced:
        run, parts = p.run, p.prediction
        step = parts.target_step_s
        rows.append(
            {
                "run": run["id"],
                "drafting / step": f"{parts.draft_s / step:.3f}",
                "verify / step": f"{parts.verify_s / step:.3f}",
                "overhead / step": f"{parts.iteration_s / step:.3f}",
                "iteration / step, predicted": f"{predictions.priced_iteration(p):.3f}",
                "iteration / step, measured": f"{predictions.measured_iteration(p):.3f}",
            }
        )
    return rows


#: The run whose plain step a source prints apart (its baseline's tokens per second at batch 1).
PLAIN_STEP_RUN = "dogacel-gpt-oss-120b-eagle3-bs1"


def fit_caveat_lines(comparison: predictions.Comparison, fits) -> list[str]:
    """Why the fitted overheads are not the default, with the figures computed from the runs and ``fits``
    (:func:`~dashboard.features.predictions.overhead_fits`)."""
    priced = comparison.priced
    publishers = Counter(comparison.sources[p.run["source"]]["publisher"] for p in priced)
    publisher, most = publishers.most_common(1)[0]
    fit = FITTED_OVERHEADS  # the fit on these runs (tests/dashboard/test_predictions.py refits it)
    median = dict(zip(fits["fit"], fits["median %"].astype(float), strict=True))
    left_out, alone = median["fitted, each publisher left out"], median["roofline alone"]
    lines = [
        "Why the fit is not the default: fitted without a publisher, that publisher's runs are priced "
        f"{left_out:.1f} % off (median), {'worse than' if left_out > alone else 'against'} the roofline alone's "
        f"{alone:.1f} %. "
        f"{most} of the {len(priced)} priced runs are {publisher}'s, and the time per iteration they imply is not "
        "every engine's."
    ]
    plain = next((p for p in priced if p.run["id"] == PLAIN_STEP_RUN), None)
    if plain is not None:
        tokens_per_s = float(plain.run["printed"]["speedup"]["values"][1])  # the ratio's baseline
        step = predict(plain.run, Overheads(fit.per_layer_s, 0.0)).target_step_s
        lines[0] += (
            f" With the fitted time per layer, gpt-oss-120b's plain step at batch 1 is priced at {step * 1e3:.2f} ms "
            f"against the {1e3 / tokens_per_s:.2f} ms measured ({tokens_per_s:.0f} tok/s, `{PLAIN_STEP_RUN}`), and "
            f"its measured iteration, {predictions.measured_iteration(plain):.2f} plain steps, leaves no room for the "
            "fit's "
            f"{fit.per_iteration_s * 1e3:.2f} ms beyond the draft and verify passes."
        )
    lines[0] += (
        " A time per iteration belongs to an engine and its version; these runs are too few to tell engines apart."
    )
    return [*lines, ""]


def routing_lines(comparison: predictions.Comparison) -> list[str]:
    """What the MoE runs at batch 1 say of uniform routing, with the counts computed from the runs."""
    single = [p for p in comparison.priced if p.moe and p.run["batch"] == 1]
    cheaper = [p for p in single if predictions.measured_iteration(p) < predictions.priced_iteration(p)]

    def by_source(runs) -> str:
        counts = Counter(p.run["source"] for p in runs)
        return ", ".join(f"{n} of `{source}`" for source, n in counts.items()) or "none"

    return [
        "## Expert routing",
        "",
        "A verify pass of an MoE target is priced with every token routed at random "
        "(`specmath.expected_active_experts`), more experts than a router that favours a few would wake. Real "
        "routers are not uniform: MoE-Spec (McDanel et al., arXiv 2602.16052, abstract) finds the routing within a "
        "draft tree heavy-tailed, a few experts taking most of its tokens, and MoESD (Huang et al., arXiv "
        "2505.19645, abstract) measures speculative decoding on MoE targets gaining little at small batches and "
        "more than on dense ones at medium batches, as waking more experts per verified token implies. Neither "
        "gives, in the copies read, how many distinct experts a pass of a given width wakes, so no other routing "
        f"is modelled. The runs split: of the {len(single)} MoE runs at batch 1, {len(cheaper)} take less time per "
        f"iteration than priced ({by_source(cheaper)}), as a router waking fewer experts would explain, and "
        f"{len(single) - len(cheaper)} take more ({by_source([p for p in single if p not in cheaper])}), a gap "
        "such a router would widen. A routing fitted to the first group would be one engine's and one model's.",
        "",
    ]


def batch_sweep_lines(comparison: predictions.Comparison) -> list[str]:
    """:func:`~dashboard.features.predictions.batch_sweeps` with the page's words."""
    sweeps = predictions.batch_sweeps(comparison)
    if sweeps.empty:
        return []
    return ["## Across batch sizes", "", texts.PREDICTIONS_BATCHES, "", *table(sweeps.to_dict("records")), ""]


def generated() -> str:
    """The whole of docs/predictions.md."""
    runs, sources = load_measured_runs()
    comparison = predictions.compare(runs, sources)
    summary = predictions.summarize(comparison)
    fits = predictions.overhead_fits(comparison)
    data = DATA_FILE.relative_to(ROOT).as_posix()
    lines = [
        "# Predictions vs measurements",
        "",
        f"<!-- generated by scripts/predictions_figure.py from {data}: do not edit by hand -->",
        "",
        f"Every run of `{data}` beside the speedup `specmath.predict_speedup` gives it: the run's measured "
        "acceptance length over the roofline's price of one iteration (the Hardware page's cost models, "
        "`specmath.deployment`). With the acceptance as measured, every error is the cost side's. "
        "The app's page *Predictions vs measurements* shows the same.",
        "",
    ]
    if PNG.exists():
        lines += [f"![Predicted against measured speedup](screenshots/{PNG.name})", ""]
    lines += ["## Errors", "", "Absolute percentage error, |predicted − measured| / measured.", ""]
    lines += [*table(predictions.error_table(summary).to_dict("records")), ""]
    lines += [
        "## What the roofline leaves out",
        "",
        "Two times the roofline leaves out, one pair for every run (nothing per run): `tau` per layer of every "
        "forward pass (kernel launches and the floor of small kernels: a one-layer head pays a sixtieth of a "
        "sixty-layer target) and `o` per speculative iteration beyond its passes (sampling, acceptance, "
        "bookkeeping; SGLang runs speculative decoding without its overlap scheduler unless "
        "`SGLANG_ENABLE_SPEC_V2` is set, so the scheduler's time per step is no longer hidden). The default, "
        "`specmath.predict.MEASURED_OVERHEADS`, takes `tau` from a measurement apart from these runs (a decoding "
        "step of Llama-3.1-8B on an H100 in a CUDA graph, 5.1 ms, https://cloudai.pt/tag/cuda-graphs/, less the "
        "roofline's 4.48 ms, over 32 layers) and no `o` in general. For SGLang without its overlap scheduler "
        "(rows whose `overlap` is false: every SGLang row published before 0.5.11, which made that scheduler "
        "speculative decoding's default, and Inesh Reddy's runs with it off) it "
        "adds the host time an iteration leaves exposed, measured apart too: one request to Qwen3.5-397B-A17B "
        "at the same acceptance length 3.368, 298.19 tokens/s without the overlap scheduler and 323.72 with it "
        "(sgl-project/sglang PR #18906), 0.89 ms an iteration; a lower bound, since the overlap scheduler hides "
        "the host's work and not the GPU's. `specmath.predict.fit_overheads` fits `tau` and `o` to these "
        "runs by least median error; the table scores the fit in sample, with each source left out, and with "
        "each publisher left out (two sources by one author are not independent).",
        "",
        *table(fits.to_dict("records")),
        "",
        *fit_caveat_lines(comparison, fits),
    ]
    lines += ["## Each run", "", "error % = (predicted − measured) / measured: above 0 the model promises more.", ""]
    lines += [*table(predictions.run_table(comparison).to_dict("records")), ""]
    lines += [
        "## Which side is off",
        "",
        "One iteration's time in plain decoding steps T_target(1): the drafting and the verify pass as the "
        "model prices them, their sum, and the sum the measurement implies (accept length / measured "
        "speedup, the same plain step assumed). A measured iteration dearer than the predicted one is a cost "
        "the model leaves out.",
        "",
    ]
    lines += [*table(iteration_rows(comparison)), ""]
    lines += routing_lines(comparison)
    lines += batch_sweep_lines(comparison)
    lines += [f"## Runs priced more than {predictions.FAR_OFF_PCT:.0f} % off, and why", ""]
    lines += [f"- `{run}`: {why}" for run, why in predictions.far_off(comparison)] or ["(none)"]
    lines += ["", "## Runs the model cannot price", ""]
    lines += [f"- `{u.run['id']}`: {_cell(u.message)}" for u in comparison.unpriced] or ["(none)"]
    lines += ["", "## Sources", ""]
    lines += [f"- `{key}`: {_cell(s['citation'])}, <{s['url']}>" for key, s in sources.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help=f"write {DOC.relative_to(ROOT)}")
    parser.add_argument("--png", action="store_true", help=f"take {PNG.relative_to(ROOT)} first, then write")
    args = parser.parse_args(argv)
    if args.png:
        from scripts import screenshots

        screenshots.main(["--url", "http://localhost/Predictions", "--out", str(PNG.parent)])
    if args.write or args.png:
        DOC.write_text(generated(), encoding="utf-8")
    else:
        sys.stdout.write(generated())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
