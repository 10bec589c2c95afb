"""Who may talk to the agent, as every modelled Hermes decides it: the contract's default authorizer.

`authz` (Hermes's `_is_user_authorized`, rule by rule), `adapters` and `intake` (the own-policy
adapters' effective policies and intake gates), `identity` (sender IDs as Hermes compares them) and
`access_files` (the pairing store and WhatsApp alias files, read as data).  A version that decides
differently subclasses `authz.Authorizer` in its own package; `Model.authorizer()` hands out the one
that judges.  Nothing here imports a version package.
"""
