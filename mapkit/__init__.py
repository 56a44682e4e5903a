"""mapkit: design, check, balance and print Ticket to Ride-style fan maps of transit networks."""

__version__ = "0.1.0"
