"""One meaning for the language: the reference evaluator of the checked model."""

from dsl.semantics.values import constant_value, is_number

__all__ = ["constant_value", "is_number"]
