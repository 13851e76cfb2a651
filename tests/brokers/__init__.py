"""Real-broker tests (servers from scripts/services.sh and private processes)."""
