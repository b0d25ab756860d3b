"""The only package that builds boto3 sessions and clients (besides the emulator's own hook)."""
