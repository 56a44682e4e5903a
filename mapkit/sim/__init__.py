"""The rules simulator: rulesets, game state, engine, agents, runner."""
