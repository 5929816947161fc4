"""Operator impact: what a commit changes for someone who runs the software (environment
variables, CLI flags, engine arguments, dependencies, deprecations), read from its diff by rules
alone, without an LLM.

- ``extract``: ``operator_impact`` and its result (``OperatorImpact``, ``OperatorChange``).
- ``rules``: what to look at, as data (``ImpactRules``, ``impact_rules``).
- ``diff``: a unified diff's hunks and sides, and a tolerant reader of Python calls in them.
- ``findings``: the kinds of change and what the finders report (``ImpactKind``, ``ChangeKind``).
- ``env_vars``, ``arguments`` (CLI flags and engine-argument fields), ``dependencies``,
  ``deprecations``: one finder per kind of change.
- ``compare``: the two sides of a diff matched into added, removed, renamed and changed names.
"""

from commit_digest.meaning.impact.extract import OperatorChange, OperatorImpact, operator_impact
from commit_digest.meaning.impact.findings import ChangeKind, ImpactKind
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
