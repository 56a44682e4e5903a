"""Balance: statistics, the agent panel, the report and its figures."""
