"""`mapkit tune`: the balance loop closed. aims (what to aim for), evidence (the panel's games,
game by game), propose (changes from the evidence), loop (keep what is proven to help), changelog
(what was done, as text and JSON), writeback (only the changed fields of the file move)."""
