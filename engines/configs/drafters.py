"""Which drafter kind (:data:`specmath.general.DRAFTERS`) each speculative method drafts as, and what to
say where a page costs one kind and configures a method of another.

A method's kind is how the engines run its drafter: :data:`specmath.deployment.METHOD_DRAFTERS`,
with the engines' sources, kept in specmath because the cost side (:func:`specmath.predict_speedup`,
the Hardware page) prices each kind.
"""

from __future__ import annotations

from specmath._validate import shown
from specmath.deployment import METHOD_DRAFTERS

from ._common import METHODS, check_method

#: What each kind does, for messages.
_KINDS = {
    "sequential": "a draft run once per drafted token",
    "parallel": "a block drafter, which proposes all k tokens in one pass",
    "model_free": "a model-free lookup, with no draft model",
}


def methods_for(drafter: str) -> tuple[str, ...]:
    """The methods of :data:`~engines.configs.METHODS` that draft as ``drafter``."""
    if drafter not in _KINDS:
        raise ValueError(f"drafter must be one of {', '.join(_KINDS)}, got {shown(drafter):.80}")
    return tuple(method for method in METHODS if METHOD_DRAFTERS[method] == drafter)


def drafter_mismatch(drafter: str, method: str) -> str | None:
    """Why a schedule costed for ``drafter`` does not hold for ``method``'s configs, or None where they agree."""
    method = check_method(method)
    choices = methods_for(drafter)  # checks drafter
    if drafter == METHOD_DRAFTERS[method]:
        return None
    said = (
        f"The schedule is costed for {_KINDS[drafter]}, but method `{method}` drafts with "
        f"{METHODS[method]}, as {_KINDS[METHOD_DRAFTERS[method]]}: the configs below would not run what was predicted. "
    )
    listed = ", ".join(f"`{name}`" for name in choices)
    return said + f"Choose the drafter kind of the method, or one of {listed}."
