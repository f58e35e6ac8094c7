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

from dashboard.features import predictions  # noqa: E402
from dashboard.measured import DATA_FILE, load_measured_runs  # noqa: E402
from specmath.predict import FITTED_OVERHEADS, predict  # noqa: E402

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
                "iteration / step, predicted": f"{(parts.draft_s + parts.verify_s + parts.iteration_s) / step:.3f}",
                "iteration / step, measured": f"{run['mean_acceptance_length'] / run['speedup']:.3f}",
            }
        )
    return rows


#: The run whose plain step the fit's time per iteration is set against, and its plain step as measured:
#: 212 tok/s at batch 1 on its model card (the fixture of its source), 4.72 ms a token.
GPT_OSS_RUN, GPT_OSS_STEP_MS = "dogacel-gpt-oss-120b-eagle3-bs1", 4.72


def why_not_the_fit(comparison: predictions.Comparison, sources: dict) -> str:
    """Why the fitted overheads are not the default, with the counts and times computed from the runs."""
    priced = comparison.priced
    per_publisher = Counter(sources[p.run["source"]]["publisher"] for p in priced)
    most = per_publisher.most_common(1)[0][1]  # one user's SGLang reports, Qwen3-30B-A3B with EAGLE-3
    gpt = next(p for p in priced if p.run["id"] == GPT_OSS_RUN)
    fitted = FITTED_OVERHEADS
    step_ms = predict(gpt.run, fitted).target_step_s * 1e3
    steps = gpt.run["mean_acceptance_length"] / gpt.run["speedup"]
    return (
        "Why the fit is not the default: fitted without a publisher, that publisher's runs are priced worse than "
        f'by the roofline alone (the row "each publisher left out"). {most} of the {len(priced)} priced runs are '
        "one user's SGLang reports (Qwen3-30B-A3B with an EAGLE-3 head, batch 1 to 64, often slower than plain "
        "decoding), and the time per iteration they imply is not every engine's: with the fitted time per layer, "
        f"gpt-oss-120b's plain step at batch 1 is priced at {step_ms:.2f} ms against the {GPT_OSS_STEP_MS} ms "
        f"measured (212 tok/s), and its measured iteration, {steps:.2f} plain steps, leaves no room for the fit's "
        f"{fitted.per_iteration_s * 1e3:.2f} ms beyond the draft and verify passes. A time per iteration belongs "
        "to an engine and its version; these runs are too few to tell engines apart."
    )


def generated() -> str:
    """The whole of docs/predictions.md."""
    runs, sources = load_measured_runs()
    comparison = predictions.compare(runs, sources)
    summary = predictions.summarize(comparison)
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
        "roofline's 4.48 ms, over 32 layers) and no `o`. `specmath.predict.fit_overheads` fits both to these "
        "runs by least median error; the table scores the fit in sample, with each source left out, and with "
        "each publisher left out (two sources by one author are not independent).",
        "",
        *table(predictions.overhead_fits(comparison).to_dict("records")),
        "",
        why_not_the_fit(comparison, sources),
        "",
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
