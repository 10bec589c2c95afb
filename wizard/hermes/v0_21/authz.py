"""The main line's authorization (gateway/authz_mixin.py `_principal_matches_allowlist`): 0.20.1's, except that an
allowlist is matched by the sender's ID as it comes — a `bob@host` sender no longer matches a `bob` item — and a
SimpleX contact only by its stable contact ID, never by the display name any contact can adopt (#44729; upstream's
authz_mixin.py at 9fa23760 says so, as the 0.22.2 fork does).  The pairing store (gateway/pairing.py
`_load_approved`, the same in a stored upstream text and the fork) reads an approved file that is not a JSON object
as empty: nobody is paired by it, and nothing raises (a file it cannot decode still raises, as before).
"""

from __future__ import annotations

from hermes_wizard.hermes.v0_20.authz import Authorizer020


class Authorizer0213(Authorizer020):
    version = "0.21.3"
    splits_sender_at_sign = False
    simplex_matches_display_name = False
    pairing_store_objects_only = True
