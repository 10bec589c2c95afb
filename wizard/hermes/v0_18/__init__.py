"""Hermes 0.18.0–0.18.2: `model` (what differs from 0.19.0) and `loader` (the 0.18 pieces of it)."""
