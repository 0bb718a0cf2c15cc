"""Bring a folder of Markdown (as static-site generators publish it) into a space, and take a space out again."""
