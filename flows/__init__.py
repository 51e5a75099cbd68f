"""Prefect flows: parameters and the order of tasks, nothing else."""
