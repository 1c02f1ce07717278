"""Rule sets: a tree read as one rule per leaf.

The public path of the rule classes and of the helpers that word their conditions; the code
lives with the other explanations in `quercus.explain` (`rules`, `conditions`, `paths`,
`wording`).
"""

from __future__ import annotations

from .explain.conditions import Condition, Interval, Known, Linear, Membership, Operator
from .explain.paths import STAYS, Precondition, Routed, node_conditions, node_predictions, unsent
from .explain.rules import Rule, RuleSet
from .explain.wording import (
    MAX_CATEGORIES,
    bound_text,
    braced,
    format_number,
    format_prediction,
    format_weight,
    linear_terms,
    linear_text,
    quote_identifier,
    quote_string,
    quote_value,
)

__all__ = [
    "Condition",
    "Interval",
    "Known",
    "Linear",
    "Membership",
    "Precondition",
    "Routed",
    "Rule",
    "RuleSet",
]
