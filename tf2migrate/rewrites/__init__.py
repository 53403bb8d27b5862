"""Rewrites: one module per concern, each declaring the codes (Rules) it reports."""
