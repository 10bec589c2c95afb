"""The model of Hermes: which Hermes is installed, and what each modelled version decides.

`detect` (in `install`) reads the installed version from Hermes's distribution metadata
without importing or running Hermes; `versions` says which versions are modelled and
which model judges any other one.
"""
