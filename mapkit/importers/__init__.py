"""Importers: turn other people's data into a draft board. Each source has its own subpackage
(`gtfs`: a transit agency's GTFS feed → stations, lines, palette → a board dict)."""
