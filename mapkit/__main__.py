from mapkit.cli import run

run()

