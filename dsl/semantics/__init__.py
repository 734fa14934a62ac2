"""One meaning for the language: the reference evaluator of the checked model."""

from dsl.semantics.values import NoValue, constant_value, evaluate, is_number, special_value

__all__ = ["NoValue", "constant_value", "evaluate", "is_number", "special_value"]
