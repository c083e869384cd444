"""Adapters to other entry points: OpenTelemetry's environment-variable factories."""
