"""The acceptance family of parameters: the α slider, a published curve, or a typed profile, as one value.

Parameter ``acc`` says where the pages' acceptance comes from: ``"α"`` (the slider, the chapter's
i.i.d. model), a name of :data:`specmath.ACCEPTANCE_PRESETS` (a measured acceptance-length curve,
or per-position rates where its source prints them), or ``"profile"``: the text of ``acc_profile``,
per-position rates ``u₁, u₂, …`` as vLLM and llama.cpp print them, or a curve of ``k:AL`` pairs
as a sweep measures it. :func:`chosen` turns the values into what ``specmath`` takes in place of
α; on the default path it is the slider's float itself, so every page computes exactly what it did.
``acc_falloff`` (the Hardware page) names a fitted fall-off of acceptance with context
(:data:`specmath.presets.CONTEXT_MEASUREMENTS`), which :func:`at_context` applies.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import specmath

#: The ``acc`` value of the α slider, and that of a typed profile.
ALPHA = "α"
PROFILE = "profile"
OPTIONS = (ALPHA, *specmath.ACCEPTANCE_PRESETS, PROFILE)
#: The ``acc_falloff`` value of no fall-off; the others are fitted heads.
NO_FALLOFF = "none"
FALLOFFS = (NO_FALLOFF, *specmath.presets.CONTEXT_MEASUREMENTS)

#: Longest typed profile: a curve's k or a profile's positions (the Hardware page searches k ≤ 32).
MAX_POSITIONS = 32
PROFILE_CHARS = 800
PROFILE_RULE = "per-position rates u₁, u₂, … (0.73, 0.52, 0.35) or a curve of k:AL pairs (1:1.84, 2:2.52)"

_NUMBER = r"[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"
_PAIR = re.compile(rf"\s*([0-9]+)\s*:\s*({_NUMBER})\s*")


def parse_profile(text: str) -> specmath.Acceptance:
    """``acc_profile``'s text as an acceptance: rates (commas or spaces) or ``k:AL`` pairs.

    Raises
    ------
    ValueError
        Naming what was read and what is wrong: an unreadable item, too many positions, rates that
        rise or leave [0, 1] (:func:`specmath.acceptance`'s own message).
    """
    items = [item for item in re.split(r"[,\s;]+", text.strip()) if item]
    if not items:
        raise ValueError("no rates or k:AL pairs given")
    if len(items) > MAX_POSITIONS:
        raise ValueError(f"{len(items)} items; at most {MAX_POSITIONS}")
    if any(":" in item for item in items):
        pairs = [_PAIR.fullmatch(item) for item in items]
        bad = [item for item, match in zip(items, pairs, strict=True) if match is None]
        if bad:
            raise ValueError(f"{bad[0]!r} is not a k:AL pair (such as 1:1.84)")
        curve = {}
        for match in pairs:
            k = int(match[1])
            if k in curve:
                raise ValueError(f"k = {k} is given twice")
            curve[k] = float(match[2])
        return specmath.acceptance(lengths=curve)
    rates = []
    for item in items:
        if not re.fullmatch(_NUMBER, item):
            raise ValueError(f"{item!r} is not a rate (a number in [0, 1])")
        rates.append(float(item))
    return specmath.acceptance(per_position=rates)


def valid_profile(text: str) -> bool:
    """Whether :func:`parse_profile` takes ``text`` (the parameter's check of a link's value)."""
    try:
        parse_profile(text)
    except ValueError:
        return False
    return True


def profile_text(value: specmath.Acceptance) -> str:
    """The ``acc_profile`` text that :func:`parse_profile` reads back as ``value`` exactly: its curve's k:AL
    pairs if it has one, else its per-position rates, each number in Python's shortest round-trip form."""
    if value.curve:
        return ",".join(f"{k}:{length!r}" for k, length in value.curve)
    return ",".join(repr(u) for u in value.per_position)


def carried(value: specmath.Acceptance) -> specmath.Acceptance:
    """``value`` as a link can carry it: a curve's first :data:`MAX_POSITIONS` k, a profile's first positions
    (the pages search k ≤ 32, so nothing they use is lost)."""
    if value.curve:
        return specmath.acceptance(lengths=dict(value.curve[:MAX_POSITIONS]))
    return specmath.acceptance(per_position=value.per_position[:MAX_POSITIONS])


def link_query(value: specmath.Acceptance) -> dict[str, str]:
    """A link's query parameters that give a page ``value`` (:func:`carried`) as its acceptance, a typed profile."""
    return {"acc": PROFILE, "acc_profile": profile_text(carried(value))}


@functools.cache
def preset_acceptance(name: str) -> specmath.Acceptance:
    """A preset's acceptance: its per-position rates where its source prints them, else its curve.

    The rates say more than the one length they sum to (vLLM's test's heads measure k = 3 only);
    the InferenceX curves give k = 1 … 8 and no rates.
    """
    preset = specmath.ACCEPTANCE_PRESETS[name]
    if preset.per_position is not None:
        return specmath.acceptance(per_position=preset.per_position)
    return specmath.acceptance(lengths=dict(preset.lengths))


@dataclass(frozen=True)
class Chosen:
    """What the acceptance parameters chose.

    Attributes
    ----------
    value : float or specmath.Acceptance
        What ``specmath`` takes in place of α: the slider's float itself for ``acc = α`` (so the
        float path runs bit for bit), else an Acceptance.
    label : str
        How charts and captions name it: "α = 0.8", the preset's name, "typed profile".
    preset : specmath.presets.AcceptancePreset or None
        The preset chosen, for its source line.
    problem : str or None
        Why a typed profile was not used (then ``value`` is the slider's α).
    """

    value: float | specmath.Acceptance
    label: str
    preset: Any = None
    problem: str | None = None

    @property
    def measured(self) -> bool:
        """Whether the value is a measured profile or curve, not the i.i.d. α."""
        return isinstance(self.value, specmath.Acceptance)

    @property
    def slug(self) -> str:
        """The value in a file name: "alpha0.80", or "measured"."""
        return "measured" if self.measured else f"alpha{self.value:.2f}"


def chosen(values: Mapping[str, Any]) -> Chosen:
    """The acceptance the page's ``alpha``, ``acc`` and ``acc_profile`` values choose."""
    alpha, source = values["alpha"], values.get("acc", ALPHA)
    if source == ALPHA:
        return Chosen(alpha, f"α = {alpha:g}")
    if source == PROFILE:
        text = values.get("acc_profile", "")
        if not text:
            return Chosen(alpha, f"α = {alpha:g}", problem="no profile typed yet")
        try:
            return Chosen(parse_profile(text), "typed profile")
        except ValueError as error:
            return Chosen(alpha, f"α = {alpha:g}", problem=str(error))
    return Chosen(preset_acceptance(source), source, preset=specmath.ACCEPTANCE_PRESETS[source])


def describe(choice: Chosen) -> str:
    """One line saying what the acceptance is and where it comes from (plain text, from this project's data)."""
    if not choice.measured:
        return ""
    value = choice.value
    if value.curve:
        shape = "AL(k) = " + ", ".join(f"{length:g}" for _, length in value.curve)
        shape += f" at k = {', '.join(str(k) for k, _ in value.curve)}"
    else:
        shape = "per-position rates " + ", ".join(f"{u:.3g}" for u in value.per_position)
    preset = choice.preset
    if preset is None:
        return f"Typed profile: {shape}."
    setting = ", ".join(str(part) for part in (preset.engine, preset.hardware, preset.dataset) if part is not None)
    return f"{preset.head} on {preset.model} ({setting}): {shape}. Source: {preset.source}."


@functools.cache
def falloff_fit(name: str) -> specmath.context.ContextFit:
    """The fall-off fitted to the named measurement's points (:func:`specmath.fit_context_falloff`)."""
    m = specmath.presets.CONTEXT_MEASUREMENTS[name]
    return specmath.fit_context_falloff(m.contexts, m.values, baseline=m.baseline, ceiling=m.ceiling)


def falloff_note(name: str) -> str:
    """One line on how much the named fall-off rests on: its points, its head, its worst residual."""
    m, fit = specmath.presets.CONTEXT_MEASUREMENTS[name], falloff_fit(name)
    g = fit.falloff
    head = f"Fall-off fitted to {m.name}: C½ = {g.half_context:,.0f} tokens, n = {g.steepness:.2f}"
    head += f", from {len(m.points)} points"
    if len(m.points) <= 3:
        return (
            f"{head}, which its three parameters pass through: a fit, not a test of the form. "
            "One head, one setup; other heads fall differently."
        )
    return (
        f"{head} (largest residual {fit.max_abs_residual:.2f}), one head and one setup: other heads fall "
        "differently, and your acceptance is taken as that at no context."
    )


def at_context(value: float | specmath.Acceptance, falloff: str, context: float):
    """``value`` at ``context`` tokens under the named fall-off: every u_i times g(context).

    ``value`` unchanged with no fall-off or at context 0 (g = 1). An i.i.d. α becomes the profile
    g αⁱ over the Hardware page's k (it is i.i.d. no longer); a curve's lengths become
    1 + (AL(k) − 1) g, a profile's rates u_i g.
    """
    if falloff == NO_FALLOFF or context == 0:
        return value
    g = falloff_fit(falloff).falloff
    if not isinstance(value, specmath.Acceptance):
        value = specmath.acceptance(alpha=value)
    if value.curve:
        return specmath.acceptance(lengths=g.lengths_at(dict(value.curve), context))
    profile = value.profile(MAX_POSITIONS) if value.alpha is not None else np.array(value.per_position)
    return specmath.acceptance(per_position=g.profile_at(profile, context))


def sidebar_note(choice: Chosen) -> tuple[str, str] | None:
    """What a page says under the acceptance widgets, as (Streamlit element, text); None on the default path.

    A typed profile it could not read is a warning naming why (the text quoted as literal text), and the
    slider's α is used; a measured value is a caption saying the slider is set aside and what is used.
    """
    from dashboard.address import literal  # Streamlit-free, but kept out of the parameter table's imports

    if choice.problem is not None:
        why = literal(choice.problem)
        return "warning", f"The typed profile is not used: {why}. Using the slider's {choice.label}."
    if not choice.measured:
        return None
    return "caption", f"The α slider is set aside: {describe(choice)}"


def document(choice: Chosen, falloff: str = NO_FALLOFF) -> dict[str, Any]:
    """The acceptance as a schedule's JSON records it: ``{"alpha": α}`` on the default path, as before."""
    if not choice.measured:
        found: dict[str, Any] = {"alpha": choice.value}
    else:
        value = choice.value
        found = {"acceptance": choice.label, "per_position": list(value.per_position)}
        if value.curve:
            found["acceptance_lengths"] = {str(k): length for k, length in value.curve}
    if falloff != NO_FALLOFF:
        found["acceptance_falloff_with_context"] = falloff
    return found
