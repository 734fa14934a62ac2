"""The compiler's back ends: what a checked book (dsl/model/) is written as.  Each reads the model
and never writes it; each is held to the reference resolver (dsl/semantics) by differential tests."""
