"""The build: stream samples, perturb them (in worker processes), commit records in order."""
