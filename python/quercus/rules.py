"""Rule sets: a tree read as one rule per leaf (`quercus.explain.rules` holds them).

This is the public path of the rule classes and of the helpers that word their conditions;
the code lives with the other explanations in `quercus.explain`.
"""

from __future__ import annotations

from .explain.rules import (
    MAX_CATEGORIES,
    STAYS,
    Condition,
    Interval,
    Known,
    Linear,
    Membership,
    Operator,
    Precondition,
    Routed,
    Rule,
    RuleSet,
    bound_text,
    braced,
    format_number,
    format_prediction,
    format_weight,
    linear_terms,
    linear_text,
    node_conditions,
    node_predictions,
    quote_identifier,
    quote_string,
    quote_value,
    unsent,
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
