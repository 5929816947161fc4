"""Operator impact: what a commit changes for someone who runs the software (environment
variables, CLI flags, engine arguments, dependencies, deprecations), read from its diff by rules
alone, without an LLM."""

from commit_digest.meaning.impact.extract import ChangeKind, ImpactKind, OperatorChange, OperatorImpact, operator_impact
from commit_digest.meaning.impact.rules import ClassRule, ImpactRules, impact_rules

__all__ = [
    "ChangeKind",
    "ClassRule",
    "ImpactKind",
    "ImpactRules",
    "OperatorChange",
    "OperatorImpact",
    "impact_rules",
    "operator_impact",
]
