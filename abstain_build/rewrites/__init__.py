"""Question rewrites: turning an answerable question into an unanswerable one.

Every rewrite must pass three validation gates (:mod:`abstain_build.rewrites.gates`): it
stays about as long as the original, it means something else, and it is still a
well-formed question with the original's ``<image N>`` placeholders.
"""
