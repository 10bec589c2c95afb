"""Hermes 0.20.1: its `model` (0.19.0's, overridden where 0.20.1 decides otherwise), the pieces it overrides
with (`envload`, `gwconfig`, `plugins`, `authz`) and its data (`env_keys.txt`, the `.env` names it knows).
"""
